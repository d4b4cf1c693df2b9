package dockermachine

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	dockerclient "github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// oldLockStep is the bootstrap lock step of the version the wedge was found with (issue 12),
// exec'd alone: the directory, then its start time. A manager killed right after it left this.
const oldLockStep = `mkdir -p /var/lib/capstan/bootstrap && date +%s > /var/lib/capstan/bootstrap/started`

// waitRunningContainer waits until the DockerMachine records its node container (spec.providerID)
// and that container runs, and returns it. A container merely seen running may still be removed:
// Create cleans up after a start that the engine reported failed, and the next reconcile makes
// another one (CI saw this under load); the one recorded is the one that stays.
func waitRunningContainer(t *testing.T, rt *docker.Runtime, dm *infrav1.DockerMachine) docker.Container {
	t.Helper()
	var c docker.Container
	envtest.WaitFor(t, 60*time.Second, "the node container of "+dm.Name+" is recorded and runs", func() (bool, error) {
		got := &infrav1.DockerMachine{}
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(dm), got); err != nil {
			return false, err
		}
		if got.Spec.ProviderID == "" {
			return false, nil
		}
		list := nodeContainers(t, rt, dm)
		if len(list) == 1 && list[0].Running {
			c = list[0]
			return true, nil
		}
		return false, fmt.Errorf("%d containers for %s", len(list), dm.Name)
	})
	return c
}

// TestDockerMachine_BootstrapLockOfAKilledManagerIsRunOnceByTheNextOne reproduces the wedge of
// issue 12: a manager took a node's bootstrap lock and died before the run. The next manager
// runs the bootstrap exactly once and the Machine provisions. A lock whose run never started
// within spec.bootstrapTimeout ends in a False condition saying what happened and what to do.
func TestDockerMachine_BootstrapLockOfAKilledManagerIsRunOnceByTheNextOne(t *testing.T) {
	rt := dockerFor(t)
	stop := startManager(t, rt, managerOptions{})
	f := newFixture(t, rt, "lock")
	f.SetInfrastructureProvisioned(t)
	machine, dm := f.newMachine(t, "w0", "", machineOptions{secretLater: true})
	_, stale := f.newMachine(t, "stale", "", machineOptions{secretLater: true, mutate: func(dm *infrav1.DockerMachine) {
		dm.Spec.BootstrapTimeout = &metav1.Duration{Duration: time.Minute}
	}})
	c := waitRunningContainer(t, rt, dm)
	staleContainer := waitRunningContainer(t, rt, stale)
	stop() // the manager dies after taking the locks, before the runs:
	execOut(t, rt, &c, "sh", "-c", oldLockStep)
	tenMinutesAgo := strconv.FormatInt(time.Now().Add(-10*time.Minute).Unix(), 10)
	execOut(t, rt, &staleContainer, "sh", "-c", oldLockStep+" && echo "+tenMinutesAgo+" > /var/lib/capstan/bootstrap/started")
	f.BootstrapSecret(t, machine.Name+"-bootstrap", fakeBootstrapData(t))
	f.BootstrapSecret(t, stale.Name+"-bootstrap", fakeBootstrapData(t))

	startManager(t, rt, managerOptions{})
	waitCondition(t, dm, 60*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionTrue, infrav1.DockerMachineBootstrapExecSucceededReason, "")
	createNode(t, machine.Name)
	got := waitCondition(t, dm, 30*time.Second, infrav1.DockerMachineReadyCondition, metav1.ConditionTrue, infrav1.DockerMachineReadyReason, "")
	require.Equal(t, ptr.To(true), got.Status.Initialization.Provisioned)
	require.Equal(t, "ran\n", execOut(t, rt, &c, "cat", "/opt/capstan-test/runs"), "the bootstrap commands ran more than once")
	require.Equal(t, "first\nappended\n", execOut(t, rt, &c, "cat", "/opt/capstan-test/log.txt"), "write_files ran more than once")

	got = waitCondition(t, stale, 60*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionFalse,
		infrav1.DockerMachineBootstrapTimedOutReason, "its commands were never started within 1m0s (spec.bootstrapTimeout)")
	msg := conditions.Get(got, infrav1.DockerMachineBootstrapExecSucceededCondition).Message
	require.Contains(t, msg, "nothing ran in the node, and it is not bootstrapped again: delete the Machine to replace it")
	require.Contains(t, conditions.Get(got, infrav1.DockerMachineReadyCondition).Message, "never started")
	require.Equal(t, "no\n", execOut(t, rt, &staleContainer, "sh", "-c", "test -e /opt/capstan-test/runs && echo yes || echo no"))
}

// TestDockerMachine_EngineErrorsDuringTheBootstrapAreReportedAndRetried makes every exec in the
// node container fail (the container is paused: the Engine refuses execs, as it fails calls
// while dockerd restarts). The bootstrap condition says why it does not advance; once the
// Engine answers again the bootstrap runs once and the Machine provisions.
func TestDockerMachine_EngineErrorsDuringTheBootstrapAreReportedAndRetried(t *testing.T) {
	rt := dockerFor(t)
	startManager(t, rt, managerOptions{})
	ctx := context.Background()
	f := newFixture(t, rt, "engine")
	f.SetInfrastructureProvisioned(t)
	machine, dm := f.newMachine(t, "w0", "", machineOptions{secretLater: true})
	c := waitRunningContainer(t, rt, dm)
	raw, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	require.NoError(t, err)
	t.Cleanup(func() { _ = raw.Close() })
	require.NoError(t, raw.ContainerPause(ctx, c.ID))
	t.Cleanup(func() {
		cleanupCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = raw.ContainerUnpause(cleanupCtx, c.ID)
	})
	f.BootstrapSecret(t, machine.Name+"-bootstrap", fakeBootstrapData(t))
	waitCondition(t, dm, 60*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionFalse,
		infrav1.DockerMachineInternalErrorReason, "Retrying the bootstrap of the node container after an error: ")
	// Bounded: an engine whose freezer does not thaw (seen once: unpause hung for the rest of the
	// run and wedged the engine for the next packages) fails here, naming it, within minutes.
	unpauseCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	require.NoError(t, raw.ContainerUnpause(unpauseCtx, c.ID), "the Docker Engine did not unpause container %s", c.Name)
	waitCondition(t, dm, 90*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionTrue, infrav1.DockerMachineBootstrapExecSucceededReason, "")
	createNode(t, machine.Name)
	waitCondition(t, dm, 30*time.Second, infrav1.DockerMachineReadyCondition, metav1.ConditionTrue, infrav1.DockerMachineReadyReason, "")
	require.Equal(t, "ran\n", execOut(t, rt, &c, "cat", "/opt/capstan-test/runs"))
}

// TestDockerMachine_ANodeContainerCreatedButNeverStartedIsMadeAgain reproduces the chaos round
// of issue 12 that never converged: dockerd stopped while it created a node container, the
// create call failed, and the container stayed behind created but never started, its /var
// volume half made (/var/run a plain directory: kubeadm then never found containerd's socket).
// The provider started it as a stopped container. Now a never-started container is removed
// with its volume and made again; a stopped one that ran is still only started.
func TestDockerMachine_ANodeContainerCreatedButNeverStartedIsMadeAgain(t *testing.T) {
	rt := dockerFor(t)
	stop := startManager(t, rt, managerOptions{})
	ctx := context.Background()
	f := newFixture(t, rt, "cutoff")
	f.SetInfrastructureProvisioned(t)
	machine, dm := f.newMachine(t, "w0", "", machineOptions{secretLater: true})
	first := waitRunningContainer(t, rt, dm)
	stop()

	raw, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	require.NoError(t, err)
	t.Cleanup(func() { _ = raw.Close() })
	info, err := raw.ContainerInspect(ctx, first.ID)
	require.NoError(t, err)
	volumeBefore, err := raw.VolumeInspect(ctx, first.Name+"-var")
	require.NoError(t, err)
	// What the cut-off create left: the same container, created and never started.
	require.NoError(t, raw.ContainerRemove(ctx, first.ID, container.RemoveOptions{Force: true}))
	cutOff, err := raw.ContainerCreate(ctx, info.Config, info.HostConfig, nil, nil, first.Name)
	require.NoError(t, err)

	startManager(t, rt, managerOptions{})
	var made docker.Container
	envtest.WaitFor(t, 60*time.Second, "the cut-off container replaced by a running one", func() (bool, error) {
		list := nodeContainers(t, rt, dm)
		if len(list) != 1 || !list[0].Running || list[0].ID == cutOff.ID {
			return false, nil
		}
		made = list[0]
		return true, nil
	})
	_, err = raw.ContainerInspect(ctx, cutOff.ID)
	require.True(t, dockerclient.IsErrNotFound(err), "the never-started container is removed, not started: %v", err)
	volumeAfter, err := raw.VolumeInspect(ctx, first.Name+"-var")
	require.NoError(t, err)
	require.NotEqual(t, volumeBefore.CreatedAt, volumeAfter.CreatedAt, "its /var volume is made again with it")

	f.BootstrapSecret(t, machine.Name+"-bootstrap", fakeBootstrapData(t))
	waitCondition(t, dm, 60*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionTrue, infrav1.DockerMachineBootstrapExecSucceededReason, "")
	require.Equal(t, "ran\n", execOut(t, rt, &made, "cat", "/opt/capstan-test/runs"))
}
