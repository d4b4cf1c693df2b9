package machinehealthcheck

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/coretest"
)

// TestMachineHealthCheck_DoesNotJudgeMachinesWithoutNodeWhileDisconnected checks a
// Machine without status.nodeRef past its node startup timeout while the workload
// cluster cannot be reached: no version of the Machine the API server reports
// says it failed its health check (its Node may exist unseen), even after the
// MachineHealthCheck reconciled past the timeout. Once the connection is back the
// Machine is judged and marked.
func TestMachineHealthCheck_DoesNotJudgeMachinesWithoutNodeWhileDisconnected(t *testing.T) {
	f := newFixture(t)
	coretest.SetKubeconfigServer(t, env, f.cluster, coretest.DeadServer)
	calls := &envtest.CallCounter{Key: client.ObjectKey{Namespace: f.ns, Name: "startup"}, Type: &clusterv1.MachineHealthCheck{}}
	startController(t, controllerOptions{calls: calls})
	m := f.newMachine("unseen", false)

	w := coretest.WatchMachine(t, env, m)

	mhc := f.newMHC("startup", func(mhc *clusterv1.MachineHealthCheck) {
		mhc.Spec.Checks.NodeStartupTimeoutSeconds = ptr.To[int32](30) // the least admission allows
	})
	timedOutAt := m.CreationTimestamp.Add(31 * time.Second)
	envtest.WaitFor(t, 40*time.Second, "the node startup timeout to pass", func() (bool, error) { return time.Now().After(timedOutAt), nil })
	gets, _ := calls.Snapshot()
	envtest.Update(t, env.Client, mhc, func() { mhc.Labels = map[string]string{"example.test/touched": "yes"} })
	envtest.WaitFor(t, timeout, "a reconcile of the MachineHealthCheck after the timeout", func() (bool, error) {
		now, _ := calls.Snapshot()
		return now > gets, nil
	})
	// The reconcile that read the MachineHealthCheck is over once another one starts.
	gets, _ = calls.Snapshot()
	envtest.Update(t, env.Client, mhc, func() { mhc.Labels["example.test/touched"] = "again" })
	envtest.WaitFor(t, timeout, "another reconcile", func() (bool, error) {
		now, _ := calls.Snapshot()
		return now > gets, nil
	})
	for _, v := range w.Versions() {
		require.Nil(t, conditions.Get(v.Machine, clusterv1.MachineHealthCheckSucceededCondition),
			"Machine version %s was judged without a connection to the workload cluster", v.Machine.ResourceVersion)
	}

	coretest.SetKubeconfigServer(t, env, f.cluster, "")
	f.waitMachineCondition("unseen", clusterv1.MachineHealthCheckSucceededCondition, unhealthy(
		clusterv1.MachineHealthCheckNodeStartupTimeoutReason, "Health check failed: Node failed to report startup in 30s"))
}
