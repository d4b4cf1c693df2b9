package rollout_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/cmd"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/capstanctl/rollout"
)

func TestProgress_SaysWhatTheRolloutWaitsFor(t *testing.T) {
	three := ptr.To[int64](3)
	tests := []struct {
		name  string
		state rollout.State
		done  bool
		line  string
	}{
		{"SpecNotObserved", rollout.State{Generation: 2, ObservedGeneration: 1, Desired: three, Replicas: 3, UpToDate: 3, Available: 3, Ready: 3},
			false, "Waiting for rollout to start: the controller has not observed generation 2 yet (observed: 1)..."},
		{"NoReplicasYet", rollout.State{Generation: 1, ObservedGeneration: 1}, false, "Waiting for spec.replicas to be set..."},
		{"NotUpToDate", rollout.State{Generation: 1, ObservedGeneration: 1, Desired: three, Replicas: 4, UpToDate: 1, Available: 3, Ready: 3},
			false, "Waiting for rollout to finish: 1 of 3 replicas are up to date..."},
		{"OutdatedLeft", rollout.State{Generation: 1, ObservedGeneration: 1, Desired: three, Replicas: 4, UpToDate: 3, Available: 3, Ready: 3},
			false, "Waiting for rollout to finish: 1 outdated replicas are pending deletion..."},
		{"NotAvailable", rollout.State{Generation: 1, ObservedGeneration: 1, Desired: three, Replicas: 3, UpToDate: 3, Available: 1, Ready: 3},
			false, "Waiting for rollout to finish: 1 of 3 updated replicas are available..."},
		{"NotReady", rollout.State{Generation: 1, ObservedGeneration: 1, Desired: three, Replicas: 3, UpToDate: 3, Available: 3, Ready: 2},
			false, "Waiting for rollout to finish: 2 of 3 updated replicas are ready..."},
		{"Complete", rollout.State{Generation: 1, ObservedGeneration: 1, Desired: three, Replicas: 3, UpToDate: 3, Available: 3, Ready: 3},
			true, "successfully rolled out: 3 of 3 replicas up to date and available"},
		{"CompleteAtZero", rollout.State{Generation: 1, ObservedGeneration: 1, Desired: ptr.To[int64](0)},
			true, "successfully rolled out: 0 of 0 replicas up to date and available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done, line := tt.state.Progress()
			require.Equal(t, tt.done, done)
			require.Equal(t, tt.line, line)
		})
	}
}

// startStatus runs `rollout status` in the background and returns its output and exit code channel.
func startStatus(t *testing.T, args ...string) (*ctltest.SyncBuffer, *ctltest.SyncBuffer, chan int) {
	t.Helper()
	path := ctltest.KubeconfigFile(t, env)
	var stdout, stderr ctltest.SyncBuffer
	done := make(chan int, 1)
	args = append([]string{"rollout", "status"}, append(args, "--poll-interval", "100ms", "--timeout", "60s", "--kubeconfig", path)...)
	go func() { done <- cmd.Execute(context.Background(), args, &stdout, &stderr) }()
	return &stdout, &stderr, done
}

func waitOutput(t *testing.T, out *ctltest.SyncBuffer, want string) {
	t.Helper()
	envtest.WaitFor(t, 30*time.Second, "output "+want, func() (bool, error) { return strings.Contains(out.String(), want), nil })
}

func exitCode(t *testing.T, done chan int, out *ctltest.SyncBuffer) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(30 * time.Second):
		t.Fatalf("rollout status did not return:\n%s", out.String())
		return -1
	}
}

func TestStatus_FollowsAMachineDeploymentUntilItsReplicasAreUpToDate(t *testing.T) {
	md := machineDeployment(t, "md-0")
	require.Greater(t, md.Generation, int64(1), "the replicas update made a generation the controller has not observed")
	setMachineDeploymentStatus(t, md, counts{observed: 1, replicas: 3, upToDate: 3, available: 3, ready: 3})
	stdout, stderr, done := startStatus(t, "md/md-0", "-n", md.Namespace)
	waitOutput(t, stdout, fmt.Sprintf("Waiting for rollout to start: the controller has not observed generation %d yet (observed: 1)...",
		reread(t, md).Generation))

	setMachineDeploymentStatus(t, md, counts{replicas: 4, upToDate: 1, available: 1, ready: 1})
	waitOutput(t, stdout, "Waiting for rollout to finish: 1 of 3 replicas are up to date...")
	setMachineDeploymentStatus(t, md, counts{replicas: 4, upToDate: 3, available: 3, ready: 3})
	waitOutput(t, stdout, "Waiting for rollout to finish: 1 outdated replicas are pending deletion...")
	setMachineDeploymentStatus(t, md, counts{replicas: 3, upToDate: 3, available: 3, ready: 3})

	require.Equal(t, 0, exitCode(t, done, stdout), stderr.String())
	require.Contains(t, stdout.String(), "MachineDeployment "+md.Namespace+"/md-0 successfully rolled out: 3 of 3 replicas up to date and available\n")
	require.Equal(t, 4, strings.Count(stdout.String(), "\n"), "one line per change:\n%s", stdout.String())
}

func TestStatus_FollowsAKubeadmControlPlaneUntilItsReplicasAreAvailable(t *testing.T) {
	kcp := kubeadmControlPlane(t, "cp")
	setControlPlaneStatus(t, kcp, counts{replicas: 3, upToDate: 3, available: 2, ready: 3})
	stdout, stderr, done := startStatus(t, "kubeadmcontrolplane/cp", "-n", kcp.GetNamespace())
	waitOutput(t, stdout, "Waiting for rollout to finish: 2 of 3 updated replicas are available...")

	setControlPlaneStatus(t, kcp, counts{replicas: 3, upToDate: 3, available: 3, ready: 3})
	require.Equal(t, 0, exitCode(t, done, stdout), stderr.String())
	require.Contains(t, stdout.String(), "KubeadmControlPlane "+kcp.GetNamespace()+"/cp successfully rolled out")
}

func TestStatus_TimesOutNamingWhatItWaitsFor(t *testing.T) {
	md := machineDeployment(t, "md-0")
	setMachineDeploymentStatus(t, md, counts{replicas: 3, upToDate: 2, available: 2, ready: 2})
	start := time.Now()
	r := runOnCluster(t, "rollout", "status", "md/md-0", "-n", md.Namespace, "--timeout", "2s", "--poll-interval", "100ms")
	require.Equal(t, 1, r.code, r.stdout)
	require.Less(t, time.Since(start), 20*time.Second)
	require.Contains(t, r.stderr, "the rollout of MachineDeployment "+md.Namespace+"/md-0 has not finished after 2s: "+
		"Waiting for rollout to finish: 2 of 3 replicas are up to date. It goes on; see why with 'kubectl describe machinedeployment md-0 -n "+md.Namespace+"'")
	require.Equal(t, "Waiting for rollout to finish: 2 of 3 replicas are up to date...\n", r.stdout, "nothing changed, so one line")
}

func TestStatus_FailsAtOnceWhenTheRolloutIsPaused(t *testing.T) {
	md := machineDeployment(t, "md-0")
	envtest.Update(t, env.Client, md, func() { md.Spec.Paused = ptr.To(true) })
	setMachineDeploymentStatus(t, md, counts{replicas: 3, upToDate: 2, available: 3, ready: 3})
	r := runOnCluster(t, "rollout", "status", "md/md-0", "-n", md.Namespace)
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "the rollout of MachineDeployment "+md.Namespace+"/md-0 cannot finish: it is paused by spec.paused: "+
		"run 'capstanctl rollout resume machinedeployment/md-0 -n "+md.Namespace+"'")

	kcp := kubeadmControlPlane(t, "cp")
	setControlPlaneStatus(t, kcp, counts{replicas: 3, upToDate: 1, available: 3, ready: 3},
		ctltest.Condition(clusterv1.PausedCondition, metav1.ConditionTrue, clusterv1.PausedReason, "Cluster c1 is paused", time.Second))
	r = runOnCluster(t, "rollout", "status", "kcp/cp", "-n", kcp.GetNamespace())
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "cannot finish: its Paused condition is True (Cluster c1 is paused): is its Cluster paused (spec.paused)?")
}

func TestStatus_PausedButCompleteSucceeds(t *testing.T) {
	md := machineDeployment(t, "md-0")
	envtest.Update(t, env.Client, md, func() { md.Spec.Paused = ptr.To(true) })
	setMachineDeploymentStatus(t, md, counts{replicas: 3, upToDate: 3, available: 3, ready: 3})
	r := runOnCluster(t, "rollout", "status", "md/md-0", "-n", md.Namespace)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "successfully rolled out")
}

func TestStatus_WatchFalsePrintsTheStateOnce(t *testing.T) {
	md := machineDeployment(t, "md-0")
	setMachineDeploymentStatus(t, md, counts{replicas: 3, upToDate: 1, available: 1, ready: 1})
	r := runOnCluster(t, "rollout", "status", "md/md-0", "-n", md.Namespace, "--watch=false")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "Waiting for rollout to finish: 1 of 3 replicas are up to date...\n", r.stdout)
}
