package dockermachinepool

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"

	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/node/nodetest"
)

func TestDockerMachinePool_InstancesListTheClustersOtherNodesInEtcHosts(t *testing.T) {
	rt := nodetest.Docker(t)
	startManager(t, rt, nil)
	ctx := context.Background()
	f := nodetest.NewFixture(t, env, rt, "hosts")
	f.SetInfrastructureProvisioned(t)
	mp, pool := newPool(t, f, "pool", fakeBootstrapData("data"), poolOptions{replicas: ptr.To(int32(2))})
	waitPool(t, pool, 90*time.Second, "2 instances provisioned", provisionedWith(2))
	f.WaitHosts(t, 2)

	t.Run("a node of the cluster outside the pool is listed while it runs", func(t *testing.T) {
		// As a DockerMachine's node container of the same Cluster: its Docker events re-trigger
		// the pool.
		other, err := rt.Create(ctx, docker.ContainerSpec{Name: f.Name("machine"), Image: nodetest.TestImage,
			Owner: docker.Owner{Namespace: f.NS, Cluster: f.Cluster.Name}, Role: docker.RoleControlPlane})
		require.NoError(t, err)
		f.WaitHosts(t, 3, other.Name)
		require.NoError(t, rt.Remove(ctx, other))
		f.WaitHosts(t, 2)
	})

	t.Run("scaling up and down", func(t *testing.T) {
		scale(t, mp, 3)
		waitPool(t, pool, 60*time.Second, "3 instances provisioned", provisionedWith(3))
		f.WaitHosts(t, 3)
		scale(t, mp, 1)
		waitPool(t, pool, 60*time.Second, "1 instance left", provisionedWith(1))
		f.WaitHosts(t, 1)
		left := poolContainers(t, rt, pool)[0]
		require.NotContains(t, nodetest.ExecOut(t, rt, &left, "cat", "/etc/hosts"), "capstan nodes", "a node alone keeps no block")
	})
}
