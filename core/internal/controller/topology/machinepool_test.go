package topology

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// withPoolClass adds to the quick-start class a MachinePool class, default-worker, whose
// infrastructure template a machinePoolClass patch gives the image variable, and marks the class
// reconciled again. The generic kinds stand in for a BootstrapConfig and an InfraMachinePool:
// the core knows neither.
func withPoolClass(t *testing.T, cc *clusterv1.ClusterClass) {
	t.Helper()
	newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, cc.Namespace, "pool", map[string]any{"image": "node:pool", "size": "small"})
	envtest.Update(t, env.Client, cc, func() {
		cc.Spec.Workers.MachinePools = []clusterv1.MachinePoolClass{{
			Class:          "default-worker",
			Bootstrap:      clusterv1.WorkerClassBootstrapTemplate{TemplateRef: classRef(crds.GenericBootstrapConfigTemplateGVK, "workers")},
			Infrastructure: clusterv1.WorkerClassInfrastructureTemplate{TemplateRef: classRef(crds.GenericInfrastructureMachineTemplateGVK, "pool")},
			FailureDomains: []string{"fd-1"},
		}}
		cc.Spec.Patches = append(cc.Spec.Patches, clusterv1.ClusterClassPatch{Name: "pool-image", Definitions: []clusterv1.PatchDefinition{{
			Selector: clusterv1.PatchSelector{APIVersion: crds.GenericInfrastructureMachineTemplateGVK.GroupVersion().String(), Kind: "GenericInfrastructureMachineTemplate",
				MatchResources: clusterv1.PatchSelectorMatch{MachinePoolClass: &clusterv1.PatchSelectorMatchClasses{Names: []string{"*"}}}},
			JSONPatches: []clusterv1.JSONPatch{
				{Op: "add", Path: "/spec/template/spec/image", ValueFrom: &clusterv1.JSONPatchValue{Variable: "image"}},
				{Op: "add", Path: "/spec/template/spec/pool", ValueFrom: &clusterv1.JSONPatchValue{Variable: "builtin.machinePool.topologyName"}},
			},
		}}})
	})
	markReconciled(t, cc)
}

// machinePools returns the Cluster's topology MachinePools by topology name.
func machinePools(t *testing.T, c *clusterv1.Cluster) map[string]*clusterv1.MachinePool {
	t.Helper()
	list := &clusterv1.MachinePoolList{}
	require.NoError(t, env.Client.List(t.Context(), list, client.InNamespace(c.Namespace), ownedBy(c)))
	out := map[string]*clusterv1.MachinePool{}
	for i := range list.Items {
		out[list.Items[i].Labels[clusterv1.ClusterTopologyMachinePoolNameLabel]] = &list.Items[i]
	}
	return out
}

func poolCluster(ns string) *clusterv1.Cluster {
	c := topologyCluster(ns)
	c.Spec.Topology.Workers.MachinePools = []clusterv1.MachinePoolTopology{{Class: "default-worker", Name: "mp-0", Replicas: ptr.To[int32](2)}}
	return c
}

// TestTopology_MachinePoolIsGeneratedScaledUpdatedInPlaceAndRemoved: the controller (with only its
// RBAC markers' rights) creates a MachinePool, its BootstrapConfig and its InfraMachinePool, all
// owned by the Cluster and labelled with the pool's topology name, and then writes nothing while
// nothing changes; a replica change scales the
// pool; a variable change updates the InfraMachinePool in place (same name, as upstream: these
// are objects, not rotated templates); removing the entry deletes the MachinePool.
func TestTopology_MachinePoolIsGeneratedScaledUpdatedInPlaceAndRemoved(t *testing.T) {
	ns := env.CreateNamespace(t, "topology-mp")
	calls := &envtest.CallCounter{Type: &clusterv1.Cluster{}, Key: client.ObjectKey{Namespace: ns, Name: "c1"}}
	applies := startController(t, env.UserFromRBACMarkers(t, "capstan-topology-mp-rbac-test", "controller.go"), calls)
	withPoolClass(t, quickStart(t, ns))
	c := poolCluster(ns)
	require.NoError(t, env.Client.Create(t.Context(), c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")

	mp := machinePools(t, got)["mp-0"]
	require.NotNil(t, mp, "a MachinePool for mp-0")
	require.Equal(t, got.UID, mp.OwnerReferences[0].UID)
	require.Contains(t, mp.Labels, clusterv1.ClusterTopologyOwnedLabel)
	require.Equal(t, "c1", mp.Labels[clusterv1.ClusterNameLabel], "the Cluster controller deletes the Cluster's MachinePools by this label")
	require.Equal(t, ptr.To[int32](2), mp.Spec.Replicas)
	require.Equal(t, []string{"fd-1"}, mp.Spec.FailureDomains)
	require.Equal(t, "v1.37.2", mp.Spec.Template.Spec.Version)
	require.Equal(t, "c1", mp.Spec.Template.Spec.ClusterName)
	bref, iref := mp.Spec.Template.Spec.Bootstrap.ConfigRef, mp.Spec.Template.Spec.InfrastructureRef
	require.Equal(t, "GenericBootstrapConfig", bref.Kind, "a BootstrapConfig object, not a template")
	require.Equal(t, "GenericInfrastructureMachine", iref.Kind)
	bootstrap := get(t, crds.GenericBootstrapConfigGVK, ns, bref.Name)
	require.NotNil(t, bootstrap)
	require.Equal(t, got.UID, bootstrap.GetOwnerReferences()[0].UID)
	require.Equal(t, "mp-0", bootstrap.GetLabels()[clusterv1.ClusterTopologyMachinePoolNameLabel])
	infra := get(t, crds.GenericInfrastructureMachineGVK, ns, iref.Name)
	require.NotNil(t, infra)
	require.Equal(t, got.UID, infra.GetOwnerReferences()[0].UID)
	require.Equal(t, "node:v1", nestedString(t, infra, "spec", "image"), "the machinePoolClass patch wrote the variable's default")
	require.Equal(t, "mp-0", nestedString(t, infra, "spec", "pool"), "builtin.machinePool.topologyName")
	require.Equal(t, "small", nestedString(t, infra, "spec", "size"))

	// Steady state: a reconcile (triggered by a label) writes none of the pool's objects.
	appliedBefore := applies.Load()
	gets, _ := calls.Snapshot()
	envtest.Update(t, env.Client, got, func() { got.Labels = map[string]string{"touched": "yes"} })
	envtest.WaitFor(t, timeout, "a reconcile after the label change", func() (bool, error) {
		g, _ := calls.Snapshot()
		return g > gets, nil
	})
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.Empty(t, applies.SinceIn(appliedBefore, ns), "steady state: only dry-run applies were sent")
	require.Equal(t, mp.ResourceVersion, machinePools(t, got)["mp-0"].ResourceVersion)
	require.Equal(t, infra.GetResourceVersion(), get(t, crds.GenericInfrastructureMachineGVK, ns, iref.Name).GetResourceVersion())
	require.Equal(t, bootstrap.GetResourceVersion(), get(t, crds.GenericBootstrapConfigGVK, ns, bref.Name).GetResourceVersion())

	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.Workers.MachinePools[0].Replicas = ptr.To[int32](5) })
	envtest.WaitFor(t, timeout, "mp-0 scaled to 5", func() (bool, error) {
		r := machinePools(t, got)["mp-0"].Spec.Replicas
		return r != nil && *r == 5, nil
	})

	envtest.Update(t, env.Client, got, func() {
		got.Spec.Topology.Variables = []clusterv1.ClusterVariable{{Name: "image", Value: js(`"node:v2"`)}}
	})
	envtest.WaitFor(t, timeout, "the InfraMachinePool updated in place", func() (bool, error) {
		u := get(t, crds.GenericInfrastructureMachineGVK, ns, iref.Name)
		return u != nil && nestedString(t, u, "spec", "image") == "node:v2", nil
	})
	mp = machinePools(t, got)["mp-0"]
	require.Equal(t, iref, mp.Spec.Template.Spec.InfrastructureRef, "the pool keeps its InfraMachinePool")
	require.Equal(t, bref, mp.Spec.Template.Spec.Bootstrap.ConfigRef)

	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.Workers.MachinePools = nil })
	envtest.WaitFor(t, timeout, "mp-0 to be deleted", func() (bool, error) {
		return len(machinePools(t, got)) == 0, nil
	})
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.Len(t, machineDeployments(t, got), 2, "the MachineDeployments stay")
}

// setPoolNodes plays the MachinePool controller: nodes Nodes, upToDate of them at the pool's
// version, observed at the pool's current generation.
func setPoolNodes(t *testing.T, mp *clusterv1.MachinePool, nodes, upToDate int) {
	t.Helper()
	envtest.UpdateStatus(t, env.Client, mp, func() {
		mp.Status.NodeRefs = nil
		for i := range nodes {
			mp.Status.NodeRefs = append(mp.Status.NodeRefs, corev1.ObjectReference{Kind: "Node", Name: fmt.Sprintf("%s-%d", mp.Name, i)})
		}
		mp.Status.Replicas = ptr.To(int32(nodes))
		mp.Status.UpToDateReplicas = ptr.To(int32(upToDate))
		mp.Status.ObservedGeneration = mp.Generation
	})
}

// TestTopology_UpgradesMachinePoolsAfterTheControlPlaneAndTheMachineDeployments: after a change
// of spec.topology.version the pool keeps its version while the control plane upgrades and while
// any MachineDeployment is upgrading or waiting, and TopologyReconciled says so; it moves once
// every MachineDeployment's Machines run the new version, and counts as upgrading until its
// Nodes do.
func TestTopology_UpgradesMachinePoolsAfterTheControlPlaneAndTheMachineDeployments(t *testing.T) {
	startController(t, nil, nil)
	ns := env.CreateNamespace(t, "topology-mp")
	withPoolClass(t, quickStart(t, ns))
	c := poolCluster(ns)
	require.NoError(t, env.Client.Create(t.Context(), c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	cpName := got.Spec.ControlPlaneRef.Name
	setControlPlaneStatus(t, ns, cpName, "v1.37.2", 3, 3)
	mds := machineDeployments(t, got)
	m0, m1 := newMachine(t, mds["md-0"], "v1.37.2"), newMachine(t, mds["md-1"], "v1.37.2")
	setPoolNodes(t, machinePools(t, got)["mp-0"], 2, 2)

	var workersDone atomic.Bool
	stop := env.Observe(t, &clusterv1.MachinePoolList{}, ns, func(objs map[string]client.Object) error {
		for _, o := range objs {
			if v := o.(*clusterv1.MachinePool).Spec.Template.Spec.Version; v != "v1.37.2" && !workersDone.Load() {
				return fmt.Errorf("MachinePool %s got %s before the control plane and the MachineDeployments were upgraded", o.GetName(), v)
			}
		}
		return nil
	})
	defer stop()

	envtest.Update(t, env.Client, got, func() { got.Spec.Topology.Version = "v1.38.0" })
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"MachinePool mp-0 upgrade to v1.38.0 deferred: control plane upgrading")

	setControlPlaneStatus(t, ns, cpName, "v1.38.0", 3, 3)
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"MachinePool mp-0 upgrade to v1.38.0 deferred: MachineDeployments upgrade first: md-0, md-1")

	envtest.Update(t, env.Client, m0, func() { m0.Spec.Version = "v1.38.0" })
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"MachinePool mp-0 upgrade to v1.38.0 deferred: MachineDeployments upgrade first: md-1")
	require.Equal(t, clusterv1.ClusterTopologyReconciledMachinePoolsUpgradePendingReason, conditionReason(got))
	require.Equal(t, "v1.38.0", machineDeployments(t, got)["md-1"].Spec.Template.Spec.Version, "md-1 moved, its Machine still runs v1.37.2")

	workersDone.Store(true)
	envtest.Update(t, env.Client, m1, func() { m1.Spec.Version = "v1.38.0" })
	envtest.WaitFor(t, timeout, "mp-0 to move to v1.38.0", func() (bool, error) {
		return machinePools(t, got)["mp-0"].Spec.Template.Spec.Version == "v1.38.0", nil
	})
	mp := machinePools(t, got)["mp-0"]
	setPoolNodes(t, mp, 2, 1)
	got = waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse, "MachinePool mp-0 upgrading to v1.38.0")
	require.Equal(t, clusterv1.ClusterTopologyReconciledClusterUpgradingReason, conditionReason(got))
	setPoolNodes(t, mp, 2, 2)
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
}
