package dockermachine

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker/dockertest"
)

func TestDockerMachine_PreLoadImagesAreImportedOnceAndAMissingOneHoldsTheBootstrap(t *testing.T) {
	rt := dockerFor(t, "capstan/node:"+kubernetesVersion)
	stop := startManager(t, rt, managerOptions{})
	f := newFixture(t, rt, "preload")
	f.SetInfrastructureProvisioned(t)
	repo := "capstan-test/preload-" + rt.Plane()[len(rt.Plane())-8:]
	present, later := repo+":present", repo+":later"
	dockertest.BuildImage(t, present, map[string]string{"/hello.txt": "present\n"})

	_, dm := f.newMachine(t, "w0", sentinelOnly, machineOptions{nodeImage: true, mutate: func(dm *infrav1.DockerMachine) {
		dm.Spec.PreLoadImages = []string{present, later}
	}})
	got := waitCondition(t, dm, 60*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionFalse,
		infrav1.DockerMachinePreLoadImageNotFoundReason, "Image "+later+" of spec.preLoadImages is not on the Docker Engine, and nothing is pulled: build it or `docker load` it")
	require.Contains(t, conditions.Get(got, infrav1.DockerMachineReadyCondition).Message, later, "Ready says what the bootstrap waits for")
	c := nodeContainers(t, rt, dm)[0]
	require.Equal(t, "new\n", execOut(t, rt, &c, "sh", "-c", "test -d /var/lib/capstan/bootstrap && echo started || echo new"), "the bootstrap waits")

	// The user builds the image; the next look imports both and bootstraps.
	dockertest.BuildImage(t, later, map[string]string{"/hello.txt": "later\n"})
	got = waitCondition(t, dm, 90*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionTrue, infrav1.DockerMachineBootstrapExecSucceededReason, "")
	images := execOut(t, rt, &c, "ctr", "-n", "k8s.io", "images", "ls", "-q")
	require.Contains(t, images, "docker.io/"+present+"\n")
	require.Contains(t, images, "docker.io/"+later+"\n")
	require.Equal(t, present+"\n"+later+"\n", execOut(t, rt, &c, "cat", "/var/lib/capstan/preloaded-images"))

	// A restarted manager that lost the condition does not import again.
	stop()
	execOut(t, rt, &c, "ctr", "-n", "k8s.io", "images", "rm", "docker.io/"+present)
	envtest.UpdateStatus(t, env.Client, got, func() { conditions.Delete(got, infrav1.DockerMachineBootstrapExecSucceededCondition) })
	startManager(t, rt, managerOptions{})
	waitCondition(t, dm, 60*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionTrue, infrav1.DockerMachineBootstrapExecSucceededReason, "")
	require.False(t, strings.Contains(execOut(t, rt, &c, "ctr", "-n", "k8s.io", "images", "ls", "-q"), present+"\n"), "the image was imported again")
}
