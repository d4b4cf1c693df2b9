package node

import (
	"context"
	"testing"

	"github.com/docker/docker/api/types/container"
	dockerclient "github.com/docker/docker/client"
	"github.com/stretchr/testify/require"

	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/docker/dockertest"
)

// TestResyncEvents_NameEveryContainerOfThePlaneWithItsCluster is what a Docker event watcher
// sends itself after its stream failed (a dockerd restart): one event per container of the plane,
// stopped ones included, each carrying the labels that map it to its object and Cluster.
func TestResyncEvents_NameEveryContainerOfThePlaneWithItsCluster(t *testing.T) {
	rt := dockertest.Runtime(t, bootstrapTestImage)
	ctx := context.Background()
	require.NoError(t, rt.EnsureNetworks(ctx))
	owner := docker.Owner{Namespace: "ns", Cluster: "c1"}
	running, err := rt.Create(ctx, docker.ContainerSpec{Name: rt.Plane() + "-w0", Image: bootstrapTestImage, Owner: owner,
		Role: docker.RoleWorker, Labels: map[string]string{"io.capstan.test/object": "w0"}})
	require.NoError(t, err)
	stopped, err := rt.Create(ctx, docker.ContainerSpec{Name: rt.Plane() + "-cp0", Image: bootstrapTestImage, Owner: owner,
		Role: docker.RoleControlPlane, Labels: map[string]string{"io.capstan.test/object": "cp0"}})
	require.NoError(t, err)
	raw, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	require.NoError(t, err)
	t.Cleanup(func() { _ = raw.Close() })
	require.NoError(t, raw.ContainerStop(ctx, stopped.ID, container.StopOptions{}))

	evs, err := ResyncEvents(ctx, rt)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	byName := map[string]docker.ContainerEvent{}
	for _, ev := range evs {
		byName[ev.Name] = ev
	}
	for _, c := range []*docker.Container{running, stopped} {
		ev, ok := byName[c.Name]
		require.True(t, ok, "no event for %s", c.Name)
		require.Equal(t, "resync", ev.Action)
		require.Equal(t, owner, ev.Owner)
		require.Equal(t, c.Role, ev.Role)
		require.Equal(t, c.Labels["io.capstan.test/object"], ev.Labels["io.capstan.test/object"])
	}
}
