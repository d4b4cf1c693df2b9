package patches

import (
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/topology/desired"
)

// clusterBuiltin is builtin.cluster, available to every template.
func clusterBuiltin(c *clusterv1.Cluster) map[string]any {
	classNS := c.Spec.Topology.ClassRef.Namespace
	if classNS == "" {
		classNS = c.Namespace
	}
	return map[string]any{
		"name": c.Name, "namespace": c.Namespace, "uid": string(c.UID),
		"topology": map[string]any{
			"version": c.Spec.Topology.Version,
			// class and classNamespace are deprecated upstream in favour of classRef; both are served.
			"class": c.Spec.Topology.ClassRef.Name, "classNamespace": classNS,
			"classRef": map[string]any{"name": c.Spec.Topology.ClassRef.Name, "namespace": classNS},
		},
	}
}

// controlPlaneBuiltin is builtin.controlPlane, for the control plane's templates.
func controlPlaneBuiltin(c *clusterv1.Cluster, name, version string) map[string]any {
	cp := map[string]any{"version": version, "name": name}
	if r := c.Spec.Topology.ControlPlane.Replicas; r != nil {
		cp["replicas"] = int64(*r)
	}
	return cp
}

// machineDeploymentBuiltin is builtin.machineDeployment, for one MachineDeployment's templates.
func machineDeploymentBuiltin(mdt *clusterv1.MachineDeploymentTopology, name, version string) map[string]any {
	md := map[string]any{"version": version, "class": mdt.Class, "name": name, "topologyName": mdt.Name}
	if mdt.Replicas != nil {
		md["replicas"] = int64(*mdt.Replicas)
	}
	return md
}

// machinePoolBuiltin is builtin.machinePool, for one MachinePool's templates: besides what
// builtin.machineDeployment has, the names of the pool's BootstrapConfig and InfraMachinePool
// (stable objects, so known before patching).
func machinePoolBuiltin(mpt *clusterv1.MachinePoolTopology, names desired.CurrentWorker, version string) map[string]any {
	mp := map[string]any{"version": version, "class": mpt.Class, "name": names.Name, "topologyName": mpt.Name,
		"bootstrap":         map[string]any{"configRef": map[string]any{"name": names.BootstrapName}},
		"infrastructureRef": map[string]any{"name": names.InfrastructureName}}
	if mpt.Replicas != nil {
		mp["replicas"] = int64(*mpt.Replicas)
	}
	return mp
}

// withBuiltin returns the builtin map for a template: builtin.cluster plus extra entries.
func withBuiltin(c *clusterv1.Cluster, extra map[string]any) map[string]any {
	b := map[string]any{"cluster": clusterBuiltin(c)}
	for k, v := range extra {
		b[k] = v
	}
	return b
}
