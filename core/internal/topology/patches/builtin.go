package patches

import (
	corev1 "k8s.io/api/core/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
	"capstan.dev/core/internal/topology/desired"
)

// clusterBuiltin is builtin.cluster, available to every template: upstream's name, namespace,
// uid, metadata (without kubectl's last-applied copy and the conversion data), topology and, when
// the Cluster sets them, network.{serviceDomain,services,pods}. Upstream's v1beta2 has no ipFamily.
func clusterBuiltin(c *clusterv1.Cluster) map[string]any {
	classNS := c.Spec.Topology.ClassRef.Namespace
	if classNS == "" {
		classNS = c.Namespace
	}
	b := map[string]any{
		"name": c.Name, "namespace": c.Namespace, "uid": string(c.UID),
		"topology": map[string]any{
			"version": c.Spec.Topology.Version,
			// class and classNamespace are deprecated upstream in favour of classRef; both are served.
			"class": c.Spec.Topology.ClassRef.Name, "classNamespace": classNS,
			"classRef": map[string]any{"name": c.Spec.Topology.ClassRef.Name, "namespace": classNS},
		},
	}
	annotations := map[string]string{}
	for k, v := range c.Annotations {
		if k != corev1.LastAppliedConfigAnnotation && k != conversion.DataAnnotation {
			annotations[k] = v
		}
	}
	setMetadata(b, clusterv1.ObjectMeta{Labels: c.Labels, Annotations: annotations})
	net := c.Spec.ClusterNetwork
	network := map[string]any{}
	if net.ServiceDomain != "" {
		network["serviceDomain"] = net.ServiceDomain
	}
	if len(net.Services.CIDRBlocks) > 0 {
		network["services"] = anyList(net.Services.CIDRBlocks)
	}
	if len(net.Pods.CIDRBlocks) > 0 {
		network["pods"] = anyList(net.Pods.CIDRBlocks)
	}
	if len(network) > 0 {
		b["network"] = network
	}
	return b
}

// controlPlaneBuiltin is builtin.controlPlane, for the control plane's templates: its version,
// name, metadata, replicas (when the topology sets them) and, for a machine-based control plane,
// machineTemplate.infrastructureRef.name.
func controlPlaneBuiltin(c *clusterv1.Cluster, names *desired.Names, meta clusterv1.ObjectMeta, version string) map[string]any {
	cp := map[string]any{"version": version, "name": names.ControlPlane}
	if r := c.Spec.Topology.ControlPlane.Replicas; r != nil {
		cp["replicas"] = int64(*r)
	}
	if names.ControlPlaneMachineInfrastructure != "" {
		cp["machineTemplate"] = map[string]any{"infrastructureRef": map[string]any{"name": names.ControlPlaneMachineInfrastructure}}
	}
	setMetadata(cp, meta)
	return cp
}

// workerBuiltin is builtin.machineDeployment or builtin.machinePool, for one worker's templates:
// its version, class, name, topology name, metadata, replicas (when set), and the names of what it
// references (bootstrap.configRef.name, infrastructureRef.name): a MachineDeployment's template
// copies, a MachinePool's BootstrapConfig and InfraMachinePool.
func workerBuiltin(class, topologyName string, replicas *int32, names desired.CurrentWorker, meta clusterv1.ObjectMeta, version string) map[string]any {
	w := map[string]any{"version": version, "class": class, "name": names.Name, "topologyName": topologyName,
		"bootstrap":         map[string]any{"configRef": map[string]any{"name": names.BootstrapName}},
		"infrastructureRef": map[string]any{"name": names.InfrastructureName}}
	if replicas != nil {
		w["replicas"] = int64(*replicas)
	}
	setMetadata(w, meta)
	return w
}

// setMetadata adds "metadata" with the non-empty labels and annotations, as upstream's builtins
// carry them (absent when both are empty).
func setMetadata(b map[string]any, meta clusterv1.ObjectMeta) {
	m := map[string]any{}
	if len(meta.Labels) > 0 {
		m["labels"] = anyMap(meta.Labels)
	}
	if len(meta.Annotations) > 0 {
		m["annotations"] = anyMap(meta.Annotations)
	}
	if len(m) > 0 {
		b["metadata"] = m
	}
}

// anyMap and anyList give values the shapes decoded JSON has, so that variable paths and
// templates walk them like user variables.
func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func anyList(l []string) []any {
	out := make([]any, len(l))
	for i, v := range l {
		out[i] = v
	}
	return out
}

// withBuiltin returns the builtin map for a template: builtin.cluster plus extra entries.
func withBuiltin(c *clusterv1.Cluster, extra map[string]any) map[string]any {
	b := map[string]any{"cluster": clusterBuiltin(c)}
	for k, v := range extra {
		b[k] = v
	}
	return b
}
