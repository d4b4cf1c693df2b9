package dockermachinepool

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker/dockertest"
	"capstan.dev/infrastructure-docker/internal/node/nodetest"
)

func TestDockerMachinePool_PreLoadImagesAreImportedAndAMissingOneHoldsTheBootstrap(t *testing.T) {
	rt := nodetest.Docker(t, "capstan/node:v1.37.2")
	startManager(t, rt, nil)
	f := nodetest.NewFixture(t, env, rt, "preload")
	f.SetInfrastructureProvisioned(t)
	image := "capstan-test/preload-" + rt.Plane()[len(rt.Plane())-8:] + ":v1"
	_, pool := newPool(t, f, "pool", fakeBootstrapData("data"), poolOptions{mutate: func(p *infrav1.DockerMachinePool) {
		p.Spec.Template.CustomImage = "capstan/node:v1.37.2"
		p.Spec.Template.PreLoadImages = []string{image}
	}})

	// systemd in the node boots first (10 s here idle, more beside other tests' nodes).
	nodetest.WaitCondition(t, env.Client, pool, 150*time.Second, infrav1.DockerMachinePoolReplicasReadyCondition, metav1.ConditionFalse,
		infrav1.DockerMachinePoolPreLoadImageNotFoundReason, "Image "+image+" of spec.template.preLoadImages is not on the Docker Engine, and nothing is pulled: build it or `docker load` it")
	nodetest.WaitCondition(t, env.Client, pool, 10*time.Second, infrav1.DockerMachinePoolReadyCondition, metav1.ConditionFalse,
		infrav1.DockerMachinePoolNotReadyReason, image)

	// The user builds the image; the next look imports it and bootstraps the instance.
	dockertest.BuildImage(t, image, map[string]string{"/hello.txt": "hello\n"})
	waitPool(t, pool, 90*time.Second, "1 instance provisioned", provisionedWith(1))
	c := poolContainers(t, rt, pool)[0]
	require.Contains(t, nodetest.ExecOut(t, rt, &c, "ctr", "-n", "k8s.io", "images", "ls", "-q"), "docker.io/"+image+"\n")
	require.Equal(t, "ran\n", nodetest.ExecOut(t, rt, &c, "cat", "/opt/capstan-test/runs"))
}
