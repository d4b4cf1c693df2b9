package clusterstate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/topology/desired"
)

func template(apiVersion, kind string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	return u
}

// TestCheckCompatible_NamesEveryObjectWhoseKindTheClassWouldChange: the control plane (by the
// Cluster's reference), its machine template (also when the class has none any more) and a
// MachinePool's objects are compared with what the class's templates generate; the same kinds
// from other templates pass, and so does what does not exist yet.
func TestCheckCompatible_NamesEveryObjectWhoseKindTheClassWouldChange(t *testing.T) {
	const infra, cp, bootstrap = "infrastructure.cluster.x-k8s.io/v1beta2", "controlplane.cluster.x-k8s.io/v1beta2", "bootstrap.cluster.x-k8s.io/v1beta2"
	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c1"}, Spec: clusterv1.ClusterSpec{
		InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DevCluster", Name: "c1-a"},
		ControlPlaneRef:   clusterv1.ContractVersionedObjectReference{APIGroup: "controlplane.cluster.x-k8s.io", Kind: "KubeadmControlPlane", Name: "c1-b"},
		Topology: clusterv1.Topology{Workers: clusterv1.WorkersTopology{
			MachinePools: []clusterv1.MachinePoolTopology{{Name: "mp-0", Class: "pool"}, {Name: "mp-new", Class: "pool"}}}},
	}}
	mp := &clusterv1.MachinePool{}
	mp.Spec.Template.Spec.Bootstrap.ConfigRef = clusterv1.ContractVersionedObjectReference{APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: "b"}
	mp.Spec.Template.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DevMachinePool", Name: "i"}
	cur := &Current{ControlPlaneMachineInfrastructure: schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "DevMachineTemplate"},
		MachinePools: map[string]*clusterv1.MachinePool{"mp-0": mp}}
	same := desired.Templates{InfrastructureCluster: template(infra, "DevClusterTemplate"), ControlPlane: template(cp, "KubeadmControlPlaneTemplate"),
		ControlPlaneMachineInfrastructure: template(infra, "DevMachineTemplate"),
		MachinePools:                      map[string]desired.WorkerTemplates{"pool": {Bootstrap: template(bootstrap, "KubeadmConfigTemplate"), Infrastructure: template(infra, "DevMachinePoolTemplate")}}}
	cc := &clusterv1.ClusterClass{ObjectMeta: metav1.ObjectMeta{Name: "next"}}
	require.Empty(t, CheckCompatible(c, cc, same, cur))

	changed := same
	changed.ControlPlane = template(cp, "OtherControlPlaneTemplate")
	changed.ControlPlaneMachineInfrastructure = nil
	changed.MachinePools = map[string]desired.WorkerTemplates{"pool": {Bootstrap: template(bootstrap, "KubeadmConfigTemplate"), Infrastructure: template(infra, "CloudMachinePoolTemplate")}}
	errs := CheckCompatible(c, cc, changed, cur)
	require.Len(t, errs, 3, "%v", errs)
	got := errs.ToAggregate().Error()
	for _, want := range []string{
		"spec.topology.classRef: Forbidden: ClusterClass next would make the ControlPlane (spec.controlPlaneRef) a OtherControlPlane (controlplane.cluster.x-k8s.io), but it is a KubeadmControlPlane",
		"spec.topology.classRef: Forbidden: ClusterClass next has no spec.controlPlane.machineInfrastructure, but this Cluster's control plane is Machine-based (a DevMachineTemplate (infrastructure.cluster.x-k8s.io))",
		"spec.topology.workers.machinePools[mp-0]: Forbidden: ClusterClass next would make MachinePool mp-0's InfraMachinePool a CloudMachinePool",
		"use a class whose spec.workers.machinePools[pool].infrastructure.templateRef is of the kind this Cluster was built with",
	} {
		require.True(t, strings.Contains(got, want), "want %q in\n%s", want, got)
	}
}
