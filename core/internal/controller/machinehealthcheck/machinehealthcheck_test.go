package machinehealthcheck

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
)

// notReadyFor makes Nodes whose Ready condition is False or Unknown for 2s unhealthy.
func notReadyFor(seconds int32) func(*clusterv1.MachineHealthCheck) {
	return func(mhc *clusterv1.MachineHealthCheck) {
		mhc.Spec.Checks.UnhealthyNodeConditions = []clusterv1.UnhealthyNodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionFalse, TimeoutSeconds: ptr.To(seconds)},
			{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, TimeoutSeconds: ptr.To(seconds)},
		}
	}
}

func remediationAllowed(mhc *clusterv1.MachineHealthCheck) error {
	if c := conditions.Get(mhc, clusterv1.MachineHealthCheckRemediationAllowedCondition); c == nil || c.Status != metav1.ConditionTrue {
		return fmt.Errorf("RemediationAllowed is %s", describeCondition(c))
	}
	return nil
}

func TestMachineHealthCheck_RemediatesMachineWhoseNodeIsNotReadyPastTimeoutAndRefusesPastMaxUnhealthy(t *testing.T) {
	f := newFixture(t)
	calls := &envtest.CallCounter{Type: &clusterv1.MachineHealthCheck{}, Key: client.ObjectKey{Namespace: f.ns, Name: "workers"}}
	startController(t, controllerOptions{calls: calls})
	// The MachineHealthCheck never deletes a Machine: remediation is its owner's job.
	stopObserving := env.Observe(t, &clusterv1.MachineList{}, f.ns, func(all map[string]client.Object) error {
		for name, m := range all {
			if m.GetDeletionTimestamp() != nil {
				return fmt.Errorf("Machine %s is being deleted", name)
			}
		}
		return nil
	})
	for _, name := range []string{"w-0", "w-1", "w-2"} {
		f.newMachine(name, true)
	}
	f.newMHC("workers", notReadyFor(2), func(mhc *clusterv1.MachineHealthCheck) {
		mhc.Spec.Remediation.TriggerIf.UnhealthyLessThanOrEqualTo = ptr.To(intstr.FromString("40%"))
	})

	// 40% of 3 Machines, rounded down, is 1.
	f.waitMHC("workers", "all healthy", func(mhc *clusterv1.MachineHealthCheck) error {
		if err := counts(3, 3, 1, "w-0", "w-1", "w-2")(mhc); err != nil {
			return err
		}
		return remediationAllowed(mhc)
	})
	for _, name := range []string{"w-0", "w-1", "w-2"} {
		f.waitMachineCondition(name, clusterv1.MachineHealthCheckSucceededCondition, healthy())
	}

	f.setNodeReady("w-0", corev1.ConditionFalse)
	got := f.waitMachineCondition("w-0", clusterv1.MachineHealthCheckSucceededCondition, unhealthy(
		clusterv1.MachineHealthCheckUnhealthyNodeReason, "Health check failed: Condition Ready on Node is reported as False for more than 2s"))
	require.True(t, conditionMatches(conditions.Get(got, clusterv1.MachineOwnerRemediatedCondition), waitingForRemediation()),
		"an unhealthy Machine asks its owner to remediate it: %s", describeCondition(conditions.Get(got, clusterv1.MachineOwnerRemediatedCondition)))
	f.waitMHC("workers", "one unhealthy, remediation allowed", func(mhc *clusterv1.MachineHealthCheck) error {
		if err := counts(3, 2, 0, "w-0", "w-1", "w-2")(mhc); err != nil {
			return err
		}
		return remediationAllowed(mhc)
	})
	marked := env.WaitForEvents(t, timeout, got, ReasonMachineMarkedUnhealthy, 1)
	require.Equal(t, "workers", marked[0].Related.Name, "the Event names the MachineHealthCheck")
	require.Contains(t, marked[0].Note, "Condition Ready on Node is reported as False")

	f.setNodeReady("w-1", corev1.ConditionUnknown)
	mhc := f.waitMHC("workers", "remediation refused", func(mhc *clusterv1.MachineHealthCheck) error {
		c := conditions.Get(mhc, clusterv1.MachineHealthCheckRemediationAllowedCondition)
		if c == nil || c.Status != metav1.ConditionFalse {
			return fmt.Errorf("RemediationAllowed is %s", describeCondition(c))
		}
		return nil
	})
	c := conditions.Get(mhc, clusterv1.MachineHealthCheckRemediationAllowedCondition)
	require.Equal(t, clusterv1.MachineHealthCheckTooManyUnhealthyReason, c.Reason)
	require.Equal(t, "Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: 3, unhealthy: 2, maxUnhealthy: 40%)", c.Message)
	require.NoError(t, counts(3, 1, 0, "w-0", "w-1", "w-2")(mhc))

	// The second unhealthy Machine is reported, but its owner is not asked to remediate it.
	got = f.waitMachineCondition("w-1", clusterv1.MachineHealthCheckSucceededCondition, unhealthy(
		clusterv1.MachineHealthCheckUnhealthyNodeReason, "Health check failed: Condition Ready on Node is reported as Unknown for more than 2s"))
	require.Nil(t, conditions.Get(got, clusterv1.MachineOwnerRemediatedCondition))
	restricted := env.WaitForEvents(t, timeout, mhc, ReasonRemediationRestricted, 1)
	require.Equal(t, "Warning", restricted[0].Type)
	require.Equal(t, c.Message, restricted[0].Note)

	// Reconciles of the unchanged state record no Event: each decision was recorded once.
	waitForReconcile(t, f, calls, "w-2")
	_, writes := calls.Snapshot()
	waitForReconcile(t, f, calls, "w-2")
	waitForReconcile(t, f, calls, "w-2")
	_, after := calls.Snapshot()
	require.Equal(t, eventWrites(writes), eventWrites(after), "no Event for an unchanged state")
	require.Equal(t, []string{"event " + ReasonMachineMarkedUnhealthy + " *v1beta2.Machine w-0", "event " + ReasonRemediationRestricted + " *v1beta2.MachineHealthCheck workers"},
		eventWrites(after))
	stopObserving()
}

// eventWrites are the Events among a CallCounter's writes.
func eventWrites(writes []string) []string {
	var out []string
	for _, w := range writes {
		if strings.HasPrefix(w, "event ") {
			out = append(out, w)
		}
	}
	return out
}

// TestMachineHealthCheck_MachinesBeingDeletedCountAgainstUnhealthyLimit follows upstream, where
// unhealthy is expected minus healthy: Machines that their owner is deleting (held here by a
// finalizer, as a drain would hold them) still count, so a second wave of failures is not
// remediated past unhealthyLessThanOrEqualTo while the first wave is still going away.
func TestMachineHealthCheck_MachinesBeingDeletedCountAgainstUnhealthyLimit(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	names := []string{"w-0", "w-1", "w-2", "w-3", "w-4"}
	for _, name := range names {
		f.newMachine(name, true, func(m *clusterv1.Machine) { m.Finalizers = []string{holdFinalizer} })
	}
	t.Cleanup(func() {
		for _, name := range names {
			if m, err := f.getMachine(name); err == nil {
				m.Finalizers = nil
				_ = env.Client.Update(f.ctx, m)
			}
		}
	})
	f.newMHC("workers", notReadyFor(2), func(mhc *clusterv1.MachineHealthCheck) {
		mhc.Spec.Remediation.TriggerIf.UnhealthyLessThanOrEqualTo = ptr.To(intstr.FromInt32(2))
	})
	f.waitMHC("workers", "all healthy", counts(5, 5, 2, names...))

	// First wave: two failures, within the limit; their owner deletes them.
	for _, name := range []string{"w-0", "w-1"} {
		f.setNodeReady(name, corev1.ConditionFalse)
	}
	for _, name := range []string{"w-0", "w-1"} {
		m := f.waitMachineCondition(name, clusterv1.MachineOwnerRemediatedCondition, waitingForRemediation())
		require.NoError(t, env.Client.Delete(f.ctx, m))
	}
	f.waitMHC("workers", "the deleting Machines counted as not healthy", counts(5, 3, 0, names...))

	// Second wave while the first is still going away: 3 unhealthy of 5 is past the limit.
	f.setNodeReady("w-2", corev1.ConditionFalse)
	mhc := f.waitMHC("workers", "remediation refused", func(mhc *clusterv1.MachineHealthCheck) error {
		if c := conditions.Get(mhc, clusterv1.MachineHealthCheckRemediationAllowedCondition); c == nil || c.Status != metav1.ConditionFalse {
			return fmt.Errorf("RemediationAllowed is %s", describeCondition(c))
		}
		return nil
	})
	require.Equal(t, "Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: 5, unhealthy: 3, maxUnhealthy: 2)",
		conditions.Get(mhc, clusterv1.MachineHealthCheckRemediationAllowedCondition).Message)
	got := f.waitMachineCondition("w-2", clusterv1.MachineHealthCheckSucceededCondition, unhealthy(
		clusterv1.MachineHealthCheckUnhealthyNodeReason, "Health check failed: Condition Ready on Node is reported as False for more than 2s"))
	require.Nil(t, conditions.Get(got, clusterv1.MachineOwnerRemediatedCondition), "w-2 is not handed to its owner past the limit")
}

func TestMachineHealthCheck_MarksMachineWithoutNodeAfterNodeStartupTimeout(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	m := f.newMachine("slow", false)
	f.newMHC("startup", func(mhc *clusterv1.MachineHealthCheck) {
		mhc.Spec.Checks.NodeStartupTimeoutSeconds = ptr.To[int32](30) // the shortest admission allows
	})
	// Before the timeout the Machine is healthy; nothing but the requeue the controller
	// asked for brings it back after that.
	f.waitMachineCondition("slow", clusterv1.MachineHealthCheckSucceededCondition, healthy())
	got := f.waitMachineCondition("slow", clusterv1.MachineHealthCheckSucceededCondition, unhealthy(
		clusterv1.MachineHealthCheckNodeStartupTimeoutReason, "Health check failed: Node failed to report startup in 30s"))
	flipped := conditions.Get(got, clusterv1.MachineHealthCheckSucceededCondition).LastTransitionTime.Time
	late := flipped.Sub(m.CreationTimestamp.Time)
	require.GreaterOrEqual(t, late, 30*time.Second, "not before the timeout")
	require.Less(t, late, 34*time.Second, "soon after the timeout, without polling")
	f.waitMachineCondition("slow", clusterv1.MachineOwnerRemediatedCondition, waitingForRemediation())
}

func TestMachineHealthCheck_MarksMachineWhoseNodeWasDeleted(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	f.newMachine("gone", true)
	f.newMHC("nodes")
	f.waitMachineCondition("gone", clusterv1.MachineHealthCheckSucceededCondition, healthy())

	require.NoError(t, env.Client.Delete(f.ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: f.nodeName("gone")}}))
	f.waitMachineCondition("gone", clusterv1.MachineHealthCheckSucceededCondition, unhealthy(
		clusterv1.MachineHealthCheckNodeDeletedReason, fmt.Sprintf("Health check failed: Node %s has been deleted", f.nodeName("gone"))))
	f.waitMachineCondition("gone", clusterv1.MachineOwnerRemediatedCondition, waitingForRemediation())
}

func TestMachineHealthCheck_RemediateAnnotationMarksMachineAndHealthyAgainClearsOwnerRemediated(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	f.newMachine("marked", true)
	f.newMHC("annotations")
	f.waitMachineCondition("marked", clusterv1.MachineHealthCheckSucceededCondition, healthy())

	annotate(t, f, "marked", func(a map[string]string) { a[clusterv1.RemediateMachineAnnotation] = "" })
	f.waitMachineCondition("marked", clusterv1.MachineHealthCheckSucceededCondition, unhealthy(
		clusterv1.MachineHealthCheckHasRemediateAnnotationReason,
		"Health check failed: marked for remediation via cluster.x-k8s.io/remediate-machine annotation"))
	f.waitMachineCondition("marked", clusterv1.MachineOwnerRemediatedCondition, waitingForRemediation())

	annotate(t, f, "marked", func(a map[string]string) { delete(a, clusterv1.RemediateMachineAnnotation) })
	f.waitMachineCondition("marked", clusterv1.MachineHealthCheckSucceededCondition, healthy())
	f.waitMachineCondition("marked", clusterv1.MachineOwnerRemediatedCondition, nil)
}

func TestMachineHealthCheck_UnhealthyInRangeRemediatesOnlyWithinTheRange(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	for _, name := range []string{"r-0", "r-1", "r-2"} {
		f.newMachine(name, true)
	}
	f.newMHC("range", func(mhc *clusterv1.MachineHealthCheck) {
		mhc.Spec.Remediation.TriggerIf.UnhealthyInRange = "[2-3]"
	})
	f.waitMachineCondition("r-0", clusterv1.MachineHealthCheckSucceededCondition, healthy())

	annotate(t, f, "r-0", func(a map[string]string) { a[clusterv1.RemediateMachineAnnotation] = "" })
	want := "Remediation is not allowed, the number of not started or unhealthy machines does not fall within the range (total: 3, unhealthy: 1, unhealthyRange: [2-3])"
	f.waitMHC("range", "below the range", func(mhc *clusterv1.MachineHealthCheck) error {
		c := conditions.Get(mhc, clusterv1.MachineHealthCheckRemediationAllowedCondition)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != clusterv1.MachineHealthCheckTooManyUnhealthyReason || c.Message != want {
			return fmt.Errorf("RemediationAllowed is %s", describeCondition(c))
		}
		return counts(3, 2, 0, "r-0", "r-1", "r-2")(mhc)
	})
	got, err := f.getMachine("r-0")
	require.NoError(t, err)
	require.Equal(t, metav1.ConditionFalse, conditions.Get(got, clusterv1.MachineHealthCheckSucceededCondition).Status)
	require.Nil(t, conditions.Get(got, clusterv1.MachineOwnerRemediatedCondition), "below the range nothing is remediated")

	annotate(t, f, "r-1", func(a map[string]string) { a[clusterv1.RemediateMachineAnnotation] = "" })
	f.waitMHC("range", "within the range", func(mhc *clusterv1.MachineHealthCheck) error {
		if err := counts(3, 1, 1, "r-0", "r-1", "r-2")(mhc); err != nil {
			return err
		}
		return remediationAllowed(mhc)
	})
	f.waitMachineCondition("r-0", clusterv1.MachineOwnerRemediatedCondition, waitingForRemediation())
	f.waitMachineCondition("r-1", clusterv1.MachineOwnerRemediatedCondition, waitingForRemediation())
	f.waitMachineCondition("r-2", clusterv1.MachineOwnerRemediatedCondition, nil)
}

// A Machine being deleted stays a target, as upstream: it is not checked or marked, but it counts
// as not healthy (see TestMachineHealthCheck_MachinesBeingDeletedCountAgainstUnhealthyLimit).
func TestMachineHealthCheck_SortsTargetsDoesNotCheckDeletingMachinesAndDoesNotWriteWhenNothingChanged(t *testing.T) {
	f := newFixture(t)
	calls := &envtest.CallCounter{Type: &clusterv1.MachineHealthCheck{}, Key: client.ObjectKey{Namespace: f.ns, Name: "steady"}}
	startController(t, controllerOptions{calls: calls})
	// Created out of order: status.targets must come out sorted whatever the list order.
	for _, name := range []string{"c", "a", "b"} {
		f.newMachine(name, true)
	}
	f.newMachine("deleting", true, func(m *clusterv1.Machine) { m.Finalizers = []string{holdFinalizer} })
	require.NoError(t, env.Client.Delete(f.ctx, &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "deleting"}}))
	t.Cleanup(func() {
		m, err := f.getMachine("deleting")
		if err == nil {
			m.Finalizers = nil
			_ = env.Client.Update(context.Background(), m)
		}
	})
	f.newMHC("steady", notReadyFor(300))

	f.waitMHC("steady", "steady state", func(mhc *clusterv1.MachineHealthCheck) error {
		if err := counts(4, 3, 3, "a", "b", "c", "deleting")(mhc); err != nil {
			return err
		}
		return remediationAllowed(mhc)
	})
	for _, name := range []string{"a", "b", "c"} {
		f.waitMachineCondition(name, clusterv1.MachineHealthCheckSucceededCondition, healthy())
	}
	deleting, err := f.getMachine("deleting")
	require.NoError(t, err)
	require.Nil(t, conditions.Get(deleting, clusterv1.MachineHealthCheckSucceededCondition), "a deleting Machine is not checked")
	// Let the reconciles that the controller's own writes triggered drain.
	waitForReconcile(t, f, calls, "a")
	gets, writes := calls.Snapshot()
	before, err := f.getMHC("steady")
	require.NoError(t, err)

	// Touching an unrelated label on a target re-runs the reconcile: it computes the same
	// state and must write nothing, neither the MachineHealthCheck nor any Machine.
	waitForReconcile(t, f, calls, "a")
	waitForReconcile(t, f, calls, "b")
	gotGets, gotWrites := calls.Snapshot()
	require.Greater(t, gotGets, gets, "the MachineHealthCheck was reconciled again")
	require.Equal(t, writes, gotWrites, "no writes (Events included) when nothing changed")
	require.Empty(t, eventWrites(gotWrites), "a steady MachineHealthCheck records no Event")
	after, err := f.getMHC("steady")
	require.NoError(t, err)
	require.Equal(t, before.ResourceVersion, after.ResourceVersion)
}

// waitForReconcile touches an unrelated label on a target Machine and waits until the
// MachineHealthCheck's reconcile has read it again and, by touching once more, until that
// reconcile has finished (reconciles of one object never overlap).
func waitForReconcile(t *testing.T, f *fixture, calls *envtest.CallCounter, machineName string) {
	t.Helper()
	for i := 0; i < 2; i++ {
		gets, _ := calls.Snapshot()
		annotate(t, f, machineName, nil, func(m *clusterv1.Machine) {
			m.Labels["capstan.test/touched"] = fmt.Sprint(time.Now().UnixNano())
		})
		envtest.WaitFor(t, timeout, "the MachineHealthCheck to be reconciled", func() (bool, error) {
			got, _ := calls.Snapshot()
			return got > gets, nil
		})
	}
}

func TestMachineHealthCheck_KeepsTheMachineControllersConditions(t *testing.T) {
	startController(t, controllerOptions{withMachineController: true})
	f := newFixture(t)
	providerID := "generic:////" + f.nodeName("shared")
	bootstrap, infra := newProviderObjects(t, f, "shared")
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "shared", Namespace: f.ns, Labels: map[string]string{poolLabel: "workers"}},
		Spec: clusterv1.MachineSpec{
			ClusterName: clusterName,
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: bootstrap.GroupVersionKind().Group, Kind: bootstrap.GetKind(), Name: bootstrap.GetName()}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: infra.GroupVersionKind().Group, Kind: infra.GetKind(), Name: infra.GetName()},
		},
	}
	require.NoError(t, env.Client.Create(f.ctx, m))
	provision(t, bootstrap, infra, providerID)
	f.createNode("shared", corev1.ConditionTrue)
	f.newMHC("shared", notReadyFor(1))

	machineControllers := map[string]metav1.ConditionStatus{
		clusterv1.MachineBootstrapConfigReadyCondition: metav1.ConditionTrue,
		clusterv1.MachineInfrastructureReadyCondition:  metav1.ConditionTrue,
		clusterv1.MachineDeletingCondition:             metav1.ConditionFalse,
		clusterv1.PausedCondition:                      metav1.ConditionFalse,
	}
	waitAll := func(what string, want map[string]metav1.ConditionStatus) *clusterv1.Machine {
		var got *clusterv1.Machine
		envtest.WaitFor(t, timeout, what, func() (bool, error) {
			var err error
			if got, err = f.getMachine("shared"); err != nil {
				return false, err
			}
			for ct, status := range want {
				c := conditions.Get(got, ct)
				if status == "" && c != nil || status != "" && (c == nil || c.Status != status) {
					return false, fmt.Errorf("condition %s is %s", ct, describeCondition(c))
				}
			}
			return true, nil
		})
		return got
	}
	with := func(extra map[string]metav1.ConditionStatus) map[string]metav1.ConditionStatus {
		out := map[string]metav1.ConditionStatus{}
		for k, v := range machineControllers {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}

	waitAll("both controllers' conditions on a healthy Machine", with(map[string]metav1.ConditionStatus{
		clusterv1.MachineNodeHealthyCondition:          metav1.ConditionTrue,
		clusterv1.MachineHealthCheckSucceededCondition: metav1.ConditionTrue,
	}))

	f.setNodeReady("shared", corev1.ConditionFalse)
	got := waitAll("both controllers' conditions on an unhealthy Machine", with(map[string]metav1.ConditionStatus{
		clusterv1.MachineNodeHealthyCondition:          metav1.ConditionFalse,
		clusterv1.MachineReadyCondition:                metav1.ConditionFalse,
		clusterv1.MachineHealthCheckSucceededCondition: metav1.ConditionFalse,
		clusterv1.MachineOwnerRemediatedCondition:      metav1.ConditionFalse,
	}))
	// Each of this controller's field managers owns exactly its own condition entry.
	owned := map[string]string{}
	for _, e := range got.ManagedFields {
		if e.Manager == HealthCheckFieldManager || e.Manager == OwnerRemediatedFieldManager {
			require.Equal(t, metav1.ManagedFieldsOperationApply, e.Operation)
			require.Equal(t, "status", e.Subresource)
			owned[e.Manager] = string(e.FieldsV1.Raw)
		}
	}
	require.Contains(t, owned[HealthCheckFieldManager], `k:{\"type\":\"HealthCheckSucceeded\"}`)
	require.Equal(t, 1, strings.Count(owned[HealthCheckFieldManager], `k:{`), owned[HealthCheckFieldManager])
	require.Contains(t, owned[OwnerRemediatedFieldManager], `k:{\"type\":\"OwnerRemediated\"}`)
	require.Equal(t, 1, strings.Count(owned[OwnerRemediatedFieldManager], `k:{`), owned[OwnerRemediatedFieldManager])

	f.setNodeReady("shared", corev1.ConditionTrue)
	waitAll("OwnerRemediated removed, every other condition kept", with(map[string]metav1.ConditionStatus{
		clusterv1.MachineNodeHealthyCondition:          metav1.ConditionTrue,
		clusterv1.MachineReadyCondition:                metav1.ConditionTrue,
		clusterv1.MachineHealthCheckSucceededCondition: metav1.ConditionTrue,
		clusterv1.MachineOwnerRemediatedCondition:      "",
	}))
}

func TestMachineHealthCheck_PausedClusterLeavesMachinesAlone(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	envtest.Update(t, env.Client, f.cluster, func() { f.cluster.Spec.Paused = ptr.To(true) })
	f.newMachine("p", true, func(m *clusterv1.Machine) {
		m.Annotations = map[string]string{clusterv1.RemediateMachineAnnotation: ""}
	})
	f.newMHC("paused")
	f.waitMHC("paused", "Paused", func(mhc *clusterv1.MachineHealthCheck) error {
		if !conditions.IsTrue(mhc, clusterv1.PausedCondition) {
			return fmt.Errorf("Paused is %s", describeCondition(conditions.Get(mhc, clusterv1.PausedCondition)))
		}
		return nil
	})
	got, err := f.getMachine("p")
	require.NoError(t, err)
	require.Nil(t, conditions.Get(got, clusterv1.MachineHealthCheckSucceededCondition), "a paused MachineHealthCheck marks nothing")
}

// annotate edits a Machine's annotations (and, with mutate, anything else) the way a
// user would, retrying on conflicts.
func annotate(t *testing.T, f *fixture, name string, edit func(map[string]string), mutate ...func(*clusterv1.Machine)) {
	t.Helper()
	envtest.WaitFor(t, timeout, "Machine "+name+" to be edited", func() (bool, error) {
		m, err := f.getMachine(name)
		if err != nil {
			return false, err
		}
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		if edit != nil {
			edit(m.Annotations)
		}
		for _, mut := range mutate {
			mut(m)
		}
		return true, env.Client.Update(f.ctx, m)
	})
}
