package dockermachine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/envtest"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

func TestDockerMachine_RecordsEachEventOnceOnItsActionAndNoneWhenSteady(t *testing.T) {
	rt := dockerFor(t)
	f := newFixture(t, rt, "ev")
	f.SetInfrastructureProvisioned(t)
	machine, dm := f.newMachine(t, "w0", fakeBootstrapData(t), machineOptions{})
	name := machine.Name
	counter := &envtest.CallCounter{Key: client.ObjectKeyFromObject(dm), Type: &infrav1.DockerMachine{}}
	startManager(t, rt, managerOptions{counter: counter})
	createNode(t, name)
	waitCondition(t, dm, 60*time.Second, infrav1.DockerMachineReadyCondition, metav1.ConditionTrue, infrav1.DockerMachineReadyReason, "")

	created := env.WaitForEvents(t, 30*time.Second, dm, ReasonSuccessfulCreate, 1)
	require.Equal(t, "CreateContainer", created[0].Action)
	require.Equal(t, "dockermachine-controller", created[0].ReportingController)
	require.Equal(t, fmt.Sprintf("Created node container %s (image %s, role worker)", name, testImage), created[0].Note)
	bootstrapped := env.WaitForEvents(t, 30*time.Second, dm, ReasonSuccessfulBootstrap, 1)
	require.Equal(t, "Bootstrap", bootstrapped[0].Action)
	require.Equal(t, "The bootstrap data ran successfully in node container "+name, bootstrapped[0].Note)

	// Steady: reconciles of a Ready DockerMachine record nothing. The first poke makes sure a
	// reconcile that began before the last write has run.
	counter.Poke(t, env.Client, dm.DeepCopy(), "0")
	_, before := counter.Snapshot()
	counter.Poke(t, env.Client, dm.DeepCopy(), "1")
	counter.Poke(t, env.Client, dm.DeepCopy(), "2")
	_, after := counter.Snapshot()
	require.Equal(t, before, after, "a steady DockerMachine is reconciled without writes (Events included)")
	require.Equal(t, 1, counter.EventsRecorded(ReasonSuccessfulCreate, dm.Name))
	require.Equal(t, 1, counter.EventsRecorded(ReasonSuccessfulBootstrap, dm.Name))

	require.NoError(t, env.Client.Delete(context.Background(), dm))
	waitGone(t, dm)
	deleted := env.WaitForEvents(t, 30*time.Second, dm, ReasonSuccessfulDelete, 1)
	require.Equal(t, "DeleteContainer", deleted[0].Action)
	require.Equal(t, "Removed node container "+name+" and its volumes", deleted[0].Note)
	require.Equal(t, 1, counter.EventsRecorded(ReasonSuccessfulDelete, dm.Name))
	for _, reason := range []string{ReasonFailedCreate, ReasonFailedBootstrap, ReasonTimedOutBootstrap, ReasonFailedDelete} {
		require.Zero(t, counter.EventsRecorded(reason, dm.Name), reason)
	}
}

func TestDockerMachine_FailedOrTimedOutBootstrapIsRecordedOnceWithItsOutput(t *testing.T) {
	rt := dockerFor(t)
	f := newFixture(t, rt, "evfail")
	f.SetInfrastructureProvisioned(t)
	_, failing := f.newMachine(t, "fail", `#cloud-config
runcmd:
- echo step one
- [sh, -c, "echo something went wrong >&2; exit 3"]
`, machineOptions{})
	_, slow := f.newMachine(t, "slow", "#cloud-config\nruncmd:\n- echo waiting\n- sleep 600\n",
		machineOptions{mutate: func(dm *infrav1.DockerMachine) {
			dm.Spec.BootstrapTimeout = &metav1.Duration{Duration: 3 * time.Second}
		}})
	counter := &envtest.CallCounter{Key: client.ObjectKeyFromObject(failing), Type: &infrav1.DockerMachine{}}
	startManager(t, rt, managerOptions{counter: counter})

	failed := env.WaitForEvents(t, 60*time.Second, failing, ReasonFailedBootstrap, 1)
	require.Equal(t, "Bootstrap", failed[0].Action)
	require.Equal(t, "Warning", failed[0].Type)
	require.Contains(t, failed[0].Note, "Bootstrap command 2 exited with 3")
	require.Contains(t, failed[0].Note, "delete the Machine to replace it", "what to do")
	require.Contains(t, failed[0].Note, "something went wrong", "the failing command's output")
	timedOut := env.WaitForEvents(t, 60*time.Second, slow, ReasonTimedOutBootstrap, 1)
	require.Contains(t, timedOut[0].Note, "did not finish within 3s")

	// Later reconciles find the same ended bootstrap, which the condition already reports.
	waitCondition(t, failing, 30*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionFalse,
		infrav1.DockerMachineBootstrapFailedReason, "exited with 3")
	counter.Poke(t, env.Client, failing.DeepCopy(), "0")
	counter.Poke(t, env.Client, failing.DeepCopy(), "1")
	require.Equal(t, 1, counter.EventsRecorded(ReasonFailedBootstrap, failing.Name))
	require.Equal(t, 1, counter.EventsRecorded(ReasonTimedOutBootstrap, slow.Name))
	require.Zero(t, counter.EventsRecorded(ReasonSuccessfulBootstrap, failing.Name)+counter.EventsRecorded(ReasonSuccessfulBootstrap, slow.Name))
}
