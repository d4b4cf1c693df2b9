package machinepool

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/coretest"
)

func conditionIs(t string, status metav1.ConditionStatus, message string) func(*clusterv1.MachinePool) error {
	return func(mp *clusterv1.MachinePool) error {
		c := conditions.Get(mp, t)
		if c == nil || c.Status != status || (message != "" && c.Message != message) {
			return fmt.Errorf("condition %s is %+v", t, c)
		}
		return nil
	}
}

func all(checks ...func(*clusterv1.MachinePool) error) func(*clusterv1.MachinePool) error {
	return func(mp *clusterv1.MachinePool) error {
		for _, c := range checks {
			if err := c(mp); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestMachinePool_NodeRefsAndCountsFollowProviderIDList(t *testing.T) {
	f := newFixture(t)
	p := f.newPool("workers", 2)

	got := f.waitPool(p, "Pending with its finalizer", all(inPhase(clusterv1.MachinePoolPhasePending), func(mp *clusterv1.MachinePool) error {
		if !controllerutil.ContainsFinalizer(mp, clusterv1.MachinePoolFinalizer) || mp.Labels[clusterv1.ClusterNameLabel] != clusterName {
			return fmt.Errorf("finalizers %v, labels %v", mp.Finalizers, mp.Labels)
		}
		return nil
	}))
	// The pool adopted both provider objects as their controller.
	for _, obj := range []*unstructured.Unstructured{p.bootstrap, p.infra} {
		envtest.WaitFor(t, timeout, obj.GetKind()+" to be owned by the MachinePool", func() (bool, error) {
			cur := obj.DeepCopy()
			if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
				return false, err
			}
			owner := metav1.GetControllerOf(cur)
			return owner != nil && owner.UID == got.UID && cur.GetLabels()[clusterv1.ClusterNameLabel] == clusterName, nil
		})
	}

	coretest.SetStatus(t, env, p.bootstrap, map[string]any{"initialization.dataSecretCreated": true, "dataSecretName": "workers-data"})
	got = f.waitPool(p, "Provisioning with the bootstrap data", all(inPhase(clusterv1.MachinePoolPhaseProvisioning),
		conditionIs(clusterv1.BootstrapConfigReadyCondition, metav1.ConditionTrue, ""),
		conditionIs(clusterv1.InfrastructureReadyCondition, metav1.ConditionFalse,
			"Waiting for GenericInfrastructureMachinePool workers to report status.initialization.provisioned")))
	require.Equal(t, "workers-data", ptr.Deref(got.Spec.Template.Spec.Bootstrap.DataSecretName, ""))
	require.True(t, ptr.Deref(got.Status.Initialization.BootstrapDataSecretCreated, false))

	f.createNode("i-1", corev1.ConditionTrue)
	f.createNode("i-2", corev1.ConditionFalse)
	f.setInstances(p, "i-1", "i-2")
	got = f.waitPool(p, "one of two instances ready", all(inPhase(clusterv1.MachinePoolPhaseScalingUp),
		replicaCounts(2, 1, 1, 2, f.nodeName("i-1"), f.nodeName("i-2")),
		conditionIs(clusterv1.InfrastructureReadyCondition, metav1.ConditionTrue, ""),
		conditionIs(clusterv1.AvailableCondition, metav1.ConditionFalse,
			"1 of 2 desired instances are available Nodes (Ready for spec.template.spec.minReadySeconds)")))
	require.Equal(t, []string{f.providerID("i-1"), f.providerID("i-2")}, got.Spec.ProviderIDList)
	require.True(t, ptr.Deref(got.Status.Initialization.InfrastructureProvisioned, false))
	require.Equal(t, corev1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: f.nodeName("i-1"),
		UID: nodeUID(t, f, "i-1")}, got.Status.NodeRefs[0])

	f.setNodeReady("i-2", corev1.ConditionTrue)
	f.waitPool(p, "Running", all(inPhase(clusterv1.MachinePoolPhaseRunning),
		replicaCounts(2, 2, 2, 2, f.nodeName("i-1"), f.nodeName("i-2")),
		conditionIs(clusterv1.AvailableCondition, metav1.ConditionTrue, ""),
		conditionIs(clusterv1.ScalingUpCondition, metav1.ConditionFalse, "")))
}

func TestMachinePool_DeletesOnlyItsNodesWhoseProviderIDLeftTheList(t *testing.T) {
	f := newFixture(t)
	p := f.newPool("shrinking", 2)
	coretest.SetStatus(t, env, p.bootstrap, map[string]any{"initialization.dataSecretCreated": true, "dataSecretName": "data"})
	f.createNode("a", corev1.ConditionTrue)
	f.createNode("b", corev1.ConditionTrue)
	// A Node of the same workload cluster that the pool never listed.
	f.createNode("stranger", corev1.ConditionTrue)
	f.setInstances(p, "a", "b")
	f.waitPool(p, "Running with two Nodes", all(inPhase(clusterv1.MachinePoolPhaseRunning),
		replicaCounts(2, 2, 2, 2, f.nodeName("a"), f.nodeName("b"))))

	// The provider removes instance b; the user asked for one replica.
	mp := p.mp.DeepCopy()
	envtest.Update(t, env.Client, mp, func() { mp.Spec.Replicas = ptr.To[int32](1) })
	f.setInstances(p, "a")
	envtest.WaitFor(t, timeout, "Node b to be deleted", func() (bool, error) { return !f.nodeExists("b"), nil })
	f.waitPool(p, "Running with one Node", all(inPhase(clusterv1.MachinePoolPhaseRunning),
		replicaCounts(1, 1, 1, 1, f.nodeName("a"))))
	require.True(t, f.nodeExists("a"))
	require.True(t, f.nodeExists("stranger"), "a Node the pool never recorded is never deleted")
}

func TestMachinePool_DeletionRemovesInfrastructureThenBootstrapThenNodes(t *testing.T) {
	f := newFixture(t)
	p := f.newPool("doomed", 1)
	coretest.SetStatus(t, env, p.bootstrap, map[string]any{"initialization.dataSecretCreated": true, "dataSecretName": "data"})
	f.createNode("d", corev1.ConditionTrue)
	f.setInstances(p, "d")
	f.waitPool(p, "Running", all(inPhase(clusterv1.MachinePoolPhaseRunning), replicaCounts(1, 1, 1, 1, f.nodeName("d"))))
	// The providers hold their objects while they tear down, as real ones would.
	hold(t, f, p.infra, true)
	hold(t, f, p.bootstrap, true)

	require.NoError(t, env.Client.Delete(f.ctx, p.mp))
	f.waitPool(p, "waiting for the InfraMachinePool", all(inPhase(clusterv1.MachinePoolPhaseDeleting),
		conditionIs(clusterv1.DeletingCondition, metav1.ConditionTrue, "Waiting for GenericInfrastructureMachinePool doomed to be deleted")))
	require.True(t, deleting(t, f, p.infra))
	require.False(t, deleting(t, f, p.bootstrap), "the bootstrap config waits for the infrastructure")
	require.True(t, f.nodeExists("d"))

	hold(t, f, p.infra, false)
	f.waitPool(p, "waiting for the bootstrap config", conditionIs(clusterv1.DeletingCondition, metav1.ConditionTrue,
		"Waiting for GenericBootstrapConfig doomed to be deleted"))
	require.True(t, deleting(t, f, p.bootstrap))
	require.True(t, f.nodeExists("d"), "Nodes go after the provider objects")

	hold(t, f, p.bootstrap, false)
	envtest.WaitFor(t, timeout, "the MachinePool to be gone", func() (bool, error) {
		_, err := f.getPool(p)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	require.False(t, f.nodeExists("d"), "the pool's Node was deleted before the finalizer was removed")
}

func TestMachinePool_PausedClusterIsLeftAlone(t *testing.T) {
	f := newFixture(t, func(c *clusterv1.Cluster) { c.Spec.Paused = ptr.To(true) })
	p := f.newPool("paused", 1)
	got := f.waitPool(p, "Paused", conditionIs(clusterv1.PausedCondition, metav1.ConditionTrue,
		"Cluster spec.paused is true: set it to false to resume reconciliation"))
	require.NotContains(t, got.Finalizers, clusterv1.MachinePoolFinalizer, "a paused pool does not add its finalizer")
	cur := p.infra.DeepCopy()
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(p.infra), cur))
	require.Empty(t, cur.GetOwnerReferences(), "nor adopt its InfraMachinePool")

	// Unpausing resumes.
	cluster := f.cluster.DeepCopy()
	envtest.Update(t, env.Client, cluster, func() { cluster.Spec.Paused = nil })
	f.waitPool(p, "resumed", all(conditionIs(clusterv1.PausedCondition, metav1.ConditionFalse, ""), inPhase(clusterv1.MachinePoolPhasePending)))
}

// hold adds or removes a finalizer that keeps a provider object around after deletion.
func hold(t *testing.T, f *fixture, obj *unstructured.Unstructured, on bool) {
	t.Helper()
	envtest.WaitFor(t, timeout, "finalizer on "+obj.GetName(), func() (bool, error) {
		cur := obj.DeepCopy()
		if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
			return false, err
		}
		if on {
			controllerutil.AddFinalizer(cur, holdFinalizer)
		} else {
			controllerutil.RemoveFinalizer(cur, holdFinalizer)
		}
		return true, env.Client.Update(f.ctx, cur)
	})
}

// deleting reports whether a provider object has a deletionTimestamp.
func deleting(t *testing.T, f *fixture, obj *unstructured.Unstructured) bool {
	t.Helper()
	cur := obj.DeepCopy()
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(obj), cur))
	return cur.GetDeletionTimestamp() != nil
}

func nodeUID(t *testing.T, f *fixture, instance string) types.UID {
	t.Helper()
	n := &corev1.Node{}
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKey{Name: f.nodeName(instance)}, n))
	return n.UID
}

func TestMachinePool_SteadyPoolIsNotWrittenWhenReconciledAgain(t *testing.T) {
	f := newFixtureWithoutController(t)
	calls := &envtest.CallCounter{Type: &clusterv1.MachinePool{}, Key: client.ObjectKey{Namespace: f.ns, Name: "steady"}}
	startController(t, calls)
	p := f.newPool("steady", 2)
	coretest.SetStatus(t, env, p.bootstrap, map[string]any{"initialization.dataSecretCreated": true, "dataSecretName": "data"})
	f.createNode("s-1", corev1.ConditionTrue)
	f.createNode("s-2", corev1.ConditionTrue)
	f.setInstances(p, "s-1", "s-2")
	f.waitPool(p, "Running", all(inPhase(clusterv1.MachinePoolPhaseRunning),
		replicaCounts(2, 2, 2, 2, f.nodeName("s-1"), f.nodeName("s-2"))))
	reconcileAgain(t, f, calls, p) // let the reconciles the controller's own writes caused drain
	gets, writes := calls.Snapshot()
	before, err := f.getPool(p)
	require.NoError(t, err)
	nodeVersions := f.nodeVersions("s-1", "s-2")

	// Touching an unrelated label on the InfraMachinePool re-runs the reconcile: it computes
	// the same state and must write nothing, neither the pool nor its provider objects.
	reconcileAgain(t, f, calls, p)
	gotGets, gotWrites := calls.Snapshot()
	require.Greater(t, gotGets, gets, "the MachinePool was reconciled again")
	require.Equal(t, writes, gotWrites, "no writes when nothing changed")
	after, err := f.getPool(p)
	require.NoError(t, err)
	require.Equal(t, before.ResourceVersion, after.ResourceVersion, "no one wrote the pool")
	require.Equal(t, nodeVersions, f.nodeVersions("s-1", "s-2"), "no one wrote the Nodes (taints in sync)")
}

// nodeVersions are the resourceVersions of the instances' Nodes.
func (f *fixture) nodeVersions(instances ...string) []string {
	f.t.Helper()
	var out []string
	for _, i := range instances {
		n := &corev1.Node{}
		require.NoError(f.t, env.Client.Get(f.ctx, client.ObjectKey{Name: f.nodeName(i)}, n))
		out = append(out, n.ResourceVersion)
	}
	return out
}

// reconcileAgain touches an unrelated label on the pool's InfraMachinePool and waits until
// the pool was read again and, touching once more, until that reconcile finished
// (reconciles of one object never overlap).
func reconcileAgain(t *testing.T, f *fixture, calls *envtest.CallCounter, p *pool) {
	t.Helper()
	for i := 0; i < 2; i++ {
		gets, _ := calls.Snapshot()
		envtest.WaitFor(t, timeout, "a label on the InfraMachinePool", func() (bool, error) {
			cur := p.infra.DeepCopy()
			if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(p.infra), cur); err != nil {
				return false, err
			}
			labels := cur.GetLabels()
			labels["capstan.test/touched"] = fmt.Sprint(time.Now().UnixNano())
			cur.SetLabels(labels)
			return true, env.Client.Update(f.ctx, cur)
		})
		envtest.WaitFor(t, timeout, "the MachinePool to be reconciled", func() (bool, error) {
			got, _ := calls.Snapshot()
			return got > gets, nil
		})
	}
}
