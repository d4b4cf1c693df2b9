package machine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/remote"
	"capstan.dev/core/internal/coretest"
)

// TestMachine_LostWorkloadConnectionKeepsNodeConditionsForTheGracePeriod breaks the
// workload connection of a Ready Machine: on every version the API server reports,
// NodeReady, NodeHealthy, Ready and Available keep their values and transition
// times until the grace period after the last successful probe is over; then the
// Node conditions are Unknown and say since when the cluster cannot be reached.
func TestMachine_LostWorkloadConnectionKeepsNodeConditionsForTheGracePeriod(t *testing.T) {
	const grace = 6 * time.Second
	startControllerWith(t, controllerOptions{gracePeriod: grace, connectRetry: time.Second})
	f := newFixture(t)
	m, _ := f.runningMachine(t, "lost")
	before, err := getMachine(t, m)
	require.NoError(t, err)
	w := coretest.WatchMachine(t, env, m)

	brokenAt := time.Now()
	coretest.SetKubeconfigServer(t, env, f.cluster, coretest.DeadServer)
	var unknown *clusterv1.Machine
	envtest.WaitFor(t, 30*time.Second+grace, "NodeHealthy=Unknown after the grace period", func() (bool, error) {
		got, err := getMachine(t, m)
		if err != nil {
			return false, err
		}
		c := conditions.Get(got, clusterv1.MachineNodeHealthyCondition)
		if c.Status != metav1.ConditionUnknown {
			return false, fmt.Errorf("NodeHealthy is %s", c.Status)
		}
		unknown = got
		return true, nil
	})
	for _, ct := range []string{clusterv1.MachineNodeReadyCondition, clusterv1.MachineNodeHealthyCondition} {
		c := conditions.Get(unknown, ct)
		require.Equal(t, clusterv1.MachineNodeConnectionDownReason, c.Reason, ct)
		require.Contains(t, c.Message, "The workload cluster cannot be reached since", ct)
	}

	// The last successful probe was at most a probe interval (1s) before the break.
	graceEnd := brokenAt.Add(grace - time.Second)
	for _, v := range w.Versions() {
		if conditionsDiff(before, v.Machine, nodeDerivedConditions) == "" {
			continue
		}
		require.False(t, v.At.Before(graceEnd), "Node-derived conditions changed %s after the connection broke, within the grace period of %s:\n%s",
			v.At.Sub(brokenAt), grace, conditionsDiff(before, v.Machine, nodeDerivedConditions))
		c := conditions.Get(v.Machine, clusterv1.MachineNodeHealthyCondition)
		require.True(t, c.Status == metav1.ConditionUnknown || strings.Contains(c.Message, "cannot be reached"),
			"the first change is to Unknown, not to False: %+v", c)
		break
	}
}

// TestMachine_RestartedManagerDoesNotFlipNodeConditionsBeforeItConnects stops the
// manager of a Ready Machine, breaks the workload connection and starts a new
// manager (a restart that cannot connect yet): on every version the API server
// reports while the new manager reconciles the Machine, the Node-derived
// conditions are unchanged.
func TestMachine_RestartedManagerDoesNotFlipNodeConditionsBeforeItConnects(t *testing.T) {
	stop := startControllerWith(t, controllerOptions{})
	f := newFixture(t)
	m, _ := f.runningMachine(t, "restart")
	stop()
	before, err := getMachine(t, m)
	require.NoError(t, err)
	coretest.SetKubeconfigServer(t, env, f.cluster, coretest.DeadServer)
	w := coretest.WatchMachine(t, env, m)

	startControllerWith(t, controllerOptions{})
	// The new manager re-adds a removed cluster-name label in the same reconcile
	// that computes the status: seeing the label back twice proves two complete
	// reconciles (one Machine is never reconciled by two workers at once).
	for i := range 2 {
		envtest.Update(t, env.Client, m, func() { delete(m.Labels, clusterv1.ClusterNameLabel) })
		envtest.WaitFor(t, 30*time.Second, fmt.Sprintf("reconcile %d of the restarted manager", i+1), func() (bool, error) {
			got, err := getMachine(t, m)
			return err == nil && got.Labels[clusterv1.ClusterNameLabel] == f.cluster.Name, err
		})
	}
	for _, v := range w.Versions() {
		require.Empty(t, conditionsDiff(before, v.Machine, nodeDerivedConditions),
			"Machine version %s flipped a Node-derived condition before the manager connected", v.Machine.ResourceVersion)
	}
}

// TestNodeConditions_BeforeAnyNodeFollowTheMachineWhileNotConnected: a Machine whose
// provider sets spec.providerID while the workload cluster is not connected yet (a
// manager that just started) must not keep saying it waits for the providerID; the
// conditions of an observed Node are kept as they were.
func TestNodeConditions_BeforeAnyNodeFollowTheMachineWhileNotConnected(t *testing.T) {
	waiting := "Waiting for the infrastructure provider to set spec.providerID"
	m := &clusterv1.Machine{}
	m.Spec.ProviderID = "generic:///m1"
	m.Status.Conditions = []metav1.Condition{
		conditions.Unknown(clusterv1.MachineNodeReadyCondition, clusterv1.MachineNodeDoesNotExistReason, waiting),
		conditions.Unknown(clusterv1.MachineNodeHealthyCondition, clusterv1.MachineNodeDoesNotExistReason, waiting),
	}
	s := &scope{machine: m, nodeErr: remote.ErrClusterNotConnected, gracePeriod: 5 * time.Minute}
	ready, healthy := nodeConditions(s, time.Now())
	for _, c := range []metav1.Condition{ready, healthy} {
		require.Equal(t, metav1.ConditionUnknown, c.Status)
		require.Contains(t, c.Message, "Waiting for a Node with spec.providerID generic:///m1", c.Type)
	}

	observed := m.DeepCopy()
	observed.Status.NodeRef.Name = "n1"
	observed.Status.Conditions = []metav1.Condition{
		conditions.True(clusterv1.MachineNodeReadyCondition, "KubeletReady", ""),
		conditions.True(clusterv1.MachineNodeHealthyCondition, clusterv1.MachineNodeHealthyReason, ""),
	}
	s.machine = observed
	ready, healthy = nodeConditions(s, time.Now())
	require.Equal(t, metav1.ConditionTrue, ready.Status)
	require.Equal(t, metav1.ConditionTrue, healthy.Status)
}
