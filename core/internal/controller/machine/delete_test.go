package machine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

func waitMachineGone(t *testing.T, m *clusterv1.Machine, within time.Duration) {
	t.Helper()
	envtest.WaitFor(t, within, "Machine "+m.Name+" to be gone", func() (bool, error) {
		_, err := getMachine(t, m)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}

func waitNodeGone(t *testing.T, node *corev1.Node) {
	t.Helper()
	envtest.WaitFor(t, 30*time.Second, "Node "+node.Name+" to be deleted", func() (bool, error) {
		err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(node), &corev1.Node{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}

// TestMachine_UnreachableNodeIsDrainedWithoutWaitingForItsPods deletes a Machine
// whose Node is unreachable (Ready Unknown) with a pod that can never finish
// terminating and volumes that can never detach, and no timeout configured: the
// drain stops waiting for pods terminating for more than a second and the volume
// wait is skipped, so the Machine and its Node go away.
func TestMachine_UnreachableNodeIsDrainedWithoutWaitingForItsPods(t *testing.T) {
	startController(t)
	f := newFixture(t)
	ctx := context.Background()
	m, node := f.runningMachine(t, "dead")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "stuck", Namespace: f.ns, Finalizers: []string{"example.test/kubelet-gone"}},
		Spec: corev1.PodSpec{NodeName: node.Name,
			Containers: []corev1.Container{{Name: "c", Image: "example.invalid/app:1"}}},
	}
	require.NoError(t, env.Client.Create(ctx, pod))
	t.Cleanup(func() {
		envtest.Update(t, env.Client, pod, func() { pod.Finalizers = nil })
	})
	require.NoError(t, env.Client.Delete(ctx, pod, client.GracePeriodSeconds(0)))
	envtest.UpdateStatus(t, env.Client, node, func() {
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown",
			Message: "Kubelet stopped posting node status.", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
		node.Status.VolumesAttached = []corev1.AttachedVolume{{Name: "kubernetes.io/csi/disk.csi.example^vol-a"}}
	})

	require.NoError(t, env.Client.Delete(ctx, m))
	waitMachineGone(t, m, 30*time.Second)
	waitNodeGone(t, node)
}

// TestMachine_MachineWhoseNodeIsGoneIsDeletedWithoutTimeouts deletes a Machine whose
// Node was already removed from the workload cluster; no drain, volume or node
// deletion timeout is set, and the deletion completes anyway.
func TestMachine_MachineWhoseNodeIsGoneIsDeletedWithoutTimeouts(t *testing.T) {
	startController(t)
	f := newFixture(t)
	ctx := context.Background()
	m, node := f.runningMachine(t, "nonode")
	require.NoError(t, env.Client.Delete(ctx, node))
	require.NoError(t, env.Client.Delete(ctx, m))
	waitMachineGone(t, m, 30*time.Second)
}

// TestMachine_DeletedBeforeNodeRefStillDeletesItsNode deletes a Machine while its
// Node had not registered (no status.nodeRef), holding the deletion with a
// pre-drain hook while the Node registers: the Node is found by spec.providerID
// and deleted with the Machine.
func TestMachine_DeletedBeforeNodeRefStillDeletesItsNode(t *testing.T) {
	startController(t)
	f := newFixture(t)
	ctx := context.Background()
	hook := clusterv1.PreDrainDeleteHookAnnotationPrefix + "/hold"
	m, bootstrap, infra := f.newMachine(t, "early", func(m *clusterv1.Machine) {
		m.Annotations = map[string]string{hook: "test"}
	})
	providerID := uniqueProviderID(f, "early")
	provision(t, bootstrap, infra, providerID)
	waitPhase(t, m, clusterv1.MachinePhaseProvisioned)
	require.NoError(t, env.Client.Delete(ctx, m))
	envtest.WaitFor(t, 30*time.Second, "the deletion to wait for the hook", func() (bool, error) {
		got, err := getMachine(t, m)
		if err != nil {
			return false, err
		}
		c := conditions.Get(got, clusterv1.MachineDeletingCondition)
		return c != nil && c.Reason == clusterv1.MachineDeletingWaitingForPreDrainHookReason, nil
	})
	node := createNode(t, f.ns+"-early", providerID)
	envtest.Update(t, env.Client, m, func() { delete(m.Annotations, hook) })
	waitMachineGone(t, m, 30*time.Second)
	waitNodeGone(t, node)
}

// failingControlPlaneList fails every list of control-plane Machines while fail is set.
type failingControlPlaneList struct {
	client.Client
	fail  atomic.Bool
	calls atomic.Int32
}

func (c *failingControlPlaneList) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	lo := (&client.ListOptions{}).ApplyOptions(opts)
	if _, ok := list.(*clusterv1.MachineList); ok && lo.LabelSelector != nil &&
		strings.Contains(lo.LabelSelector.String(), clusterv1.MachineControlPlaneLabel) && c.fail.Load() {
		c.calls.Add(1)
		return errors.New("injected: the API server is overloaded")
	}
	return c.Client.List(ctx, list, opts...)
}

// TestMachine_FailedControlPlaneListHoldsTheDeletion deletes a control-plane
// Machine while the list of control-plane Machines (which decides whether its Node
// may be drained and deleted) fails: the deletion goes no further and is retried,
// instead of skipping drain and Node deletion; once the list works it completes.
func TestMachine_FailedControlPlaneListHoldsTheDeletion(t *testing.T) {
	faulty := &failingControlPlaneList{}
	faulty.fail.Store(true)
	startControllerWith(t, controllerOptions{wrapClient: func(c client.Client) client.Client {
		faulty.Client = c
		return faulty
	}})
	f := newFixture(t)
	ctx := context.Background()
	cpLabel := func(m *clusterv1.Machine) { m.Labels = map[string]string{clusterv1.MachineControlPlaneLabel: ""} }
	m, node := f.runningMachine(t, "cp-a", cpLabel)
	other, _ := f.runningMachine(t, "cp-b", cpLabel)

	require.NoError(t, env.Client.Delete(ctx, m))
	envtest.WaitFor(t, 30*time.Second, "three failed lists (retries)", func() (bool, error) {
		if n := faulty.calls.Load(); n < 3 {
			return false, fmt.Errorf("%d lists", n)
		}
		return true, nil
	})
	got, err := getMachine(t, m)
	require.NoError(t, err, "the Machine is not deleted without the answer")
	require.Contains(t, got.Finalizers, clusterv1.MachineFinalizer)
	cur := &corev1.Node{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(node), cur))
	require.False(t, cur.Spec.Unschedulable, "nothing is drained without the answer")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(other), &clusterv1.Machine{}))

	faulty.fail.Store(false)
	waitMachineGone(t, m, 60*time.Second)
	waitNodeGone(t, node)
}

// TestDrainedBefore: the drain is skipped only once a pass reported a step after it; a Node
// look-up (DeletingNode), the drain itself or a pass that failed (Deleting without a step) drain
// again.
func TestDrainedBefore(t *testing.T) {
	for reason, want := range map[string]bool{
		clusterv1.MachineDeletingReason:                                 false,
		clusterv1.MachineDeletingWaitingForPreDrainHookReason:           false,
		clusterv1.MachineDeletingDrainingNodeReason:                     false,
		clusterv1.MachineDeletingWaitingForVolumeDetachReason:           false,
		clusterv1.MachineDeletingDeletingNodeReason:                     false,
		clusterv1.MachineDeletingWaitingForPreTerminateHookReason:       true,
		clusterv1.MachineDeletingWaitingForInfrastructureDeletionReason: true,
		clusterv1.MachineDeletingWaitingForBootstrapDeletionReason:      true,
	} {
		m := &clusterv1.Machine{}
		conditions.Set(m, conditions.True(clusterv1.MachineDeletingCondition, reason, ""))
		require.Equal(t, want, drainedBefore(m), reason)
	}
	require.False(t, drainedBefore(&clusterv1.Machine{}), "no Deleting condition yet")
}

// TestPatchError: only a deleting Machine's NotFound is no error (it is gone, so its deletion
// completed); a Machine not being deleted that vanished, or any other failure, stays an error.
func TestPatchError(t *testing.T) {
	gone := apierrors.NewNotFound(clusterv1.GroupVersion.WithResource("machines").GroupResource(), "m")
	deleting := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &metav1.Time{Time: time.Now()}}}
	require.NoError(t, patchError(deleting, fmt.Errorf("patching Machine ns/m: %w", gone)))
	require.NoError(t, patchError(deleting, nil))
	require.Error(t, patchError(&clusterv1.Machine{}, gone))
	require.Error(t, patchError(deleting, apierrors.NewConflict(clusterv1.GroupVersion.WithResource("machines").GroupResource(), "m", errors.New("changed"))))
}

// TestMachine_WorkerNodeIsKeptWhileTheControlPlaneGoesAway deletes worker Machines as upstream
// does when the control plane is on its way out: when no control-plane Machine is left, or the
// object of the Cluster's controlPlaneRef is being deleted, the Machine goes but its Node is
// never cordoned (observed on every Node event), its Pods are not evicted and it is not
// deleted. A control plane that reports status.externalManagedControlPlane has no Machines to
// count: there the Node is drained and deleted as usual. The manager runs on the RBAC its
// markers grant (the control plane is read through its contract).
func TestMachine_WorkerNodeIsKeptWhileTheControlPlaneGoesAway(t *testing.T) {
	startControllerWith(t, controllerOptions{config: env.UserFromRBACMarkers(t, "capstan-machine-rbac-test", "controller.go", "../../../rbac.go")})
	ctx := context.Background()
	withControlPlane := func(status map[string]any, deleting bool) func(t *testing.T) *fixture {
		return func(t *testing.T) *fixture {
			f := newFixtureWithoutControlPlane(t, func(c *clusterv1.Cluster) {
				c.Spec.ControlPlaneRef = crds.Ref(crds.GenericControlPlaneGVK, "cp")
			})
			cp := crds.New(crds.GenericControlPlaneGVK, f.ns, "cp")
			cp.SetFinalizers([]string{"example.test/hold"})
			require.NoError(t, env.Client.Create(ctx, cp))
			t.Cleanup(func() { envtest.Update(t, env.Client, cp, func() { cp.SetFinalizers(nil) }) })
			if status != nil {
				coretest.SetStatus(t, env, cp, status)
			}
			if deleting {
				require.NoError(t, env.Client.Delete(ctx, cp))
			}
			return f
		}
	}
	for name, tc := range map[string]struct {
		fixture  func(t *testing.T) *fixture
		keepNode bool
	}{
		"no control-plane Machine is left":    {fixture: func(t *testing.T) *fixture { return newFixtureWithoutControlPlane(t) }, keepNode: true},
		"the control plane is being deleted":  {fixture: withControlPlane(nil, true), keepNode: true},
		"an externally managed control plane": {fixture: withControlPlane(map[string]any{"externalManagedControlPlane": true}, false)},
	} {
		t.Run(name, func(t *testing.T) {
			f := tc.fixture(t)
			m, node := f.runningMachine(t, "worker")
			pod := createPodOn(t, node.Name, f.ns, "app", nil)
			stop := env.Observe(t, &corev1.NodeList{}, "", func(objs map[string]client.Object) error {
				if n, ok := objs[node.Name].(*corev1.Node); ok && n.Spec.Unschedulable && tc.keepNode {
					return fmt.Errorf("Node %s was cordoned", node.Name)
				}
				return nil
			})
			require.NoError(t, env.Client.Delete(ctx, m))
			waitMachineGone(t, m, 30*time.Second)
			if !tc.keepNode {
				waitNodeGone(t, node)
				stop()
				return
			}
			stop()
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(node), &corev1.Node{}), "the Node is kept")
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(pod), &corev1.Pod{}), "its Pods are not evicted")
		})
	}
}
