package docker_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/stretchr/testify/require"

	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/docker/dockertest"
)

// testImage is a small local image (the load balancer's); it is never pulled.
const testImage = "capstan/haproxy:latest"

func newTestRuntime(t *testing.T) *docker.Runtime {
	t.Helper()
	return dockertest.Runtime(t, testImage)
}

var owner = docker.Owner{Namespace: "ns1", Cluster: "c1"}

func TestEnsureNetworks_CreatesAnInternalAndAPublishNetworkOnce(t *testing.T) {
	r := newTestRuntime(t)
	ctx := context.Background()
	require.NoError(t, r.EnsureNetworks(ctx))
	require.NoError(t, r.EnsureNetworks(ctx))
	nets, err := docker.EngineClient(r).NetworkList(ctx, network.ListOptions{Filters: docker.PlaneFilter(r)})
	require.NoError(t, err)
	byName := map[string]network.Summary{}
	for _, n := range nets {
		byName[n.Name] = n
	}
	require.Len(t, byName, 2)
	require.True(t, byName[r.Plane()].Internal, "the node network must be internal")
	pub := byName[r.PublishNetwork()]
	require.False(t, pub.Internal)
	require.Equal(t, "false", pub.Options["com.docker.network.bridge.enable_ip_masquerade"])
}

func TestEnsureNetworks_RefusesANetworkThatIsNotOurs(t *testing.T) {
	r := newTestRuntime(t)
	ctx := context.Background()
	// A network of the plane's name made by someone else (labelled only so that the test can
	// remove it).
	created, err := docker.EngineClient(r).NetworkCreate(ctx, r.Plane(), network.CreateOptions{Internal: true, Labels: map[string]string{"io.capstan.test": r.Plane()}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = docker.EngineClient(r).NetworkRemove(context.Background(), created.ID) })
	require.ErrorIs(t, r.EnsureNetworks(ctx), docker.ErrNotOurs)
}

func TestCreate_NodeContainerHasTheProvenFlagsAndOurLabels(t *testing.T) {
	r := newTestRuntime(t)
	ctx := context.Background()
	require.NoError(t, r.EnsureNetworks(ctx))
	before := time.Now()
	c, err := r.Create(ctx, docker.ContainerSpec{Name: r.Plane() + "-cp-0", Image: testImage, Owner: owner, Role: docker.RoleControlPlane, Node: true,
		Mounts: []docker.Mount{{Target: "/scratch"}}})
	require.NoError(t, err)
	require.True(t, c.Running)
	require.WithinRange(t, c.Created, before.Add(-time.Second), time.Now().Add(time.Second), "creation time")
	require.NotEmpty(t, c.IPv4)
	require.Equal(t, owner, c.Owner)
	require.Equal(t, docker.RoleControlPlane, c.Role)

	info, err := docker.EngineClient(r).ContainerInspect(ctx, c.ID)
	require.NoError(t, err)
	h := info.HostConfig
	require.False(t, h.Privileged)
	require.Equal(t, []string{"ALL"}, []string(h.CapAdd))
	require.Equal(t, []string{"CAP_SYS_RESOURCE"}, []string(h.CapDrop)) // the engine normalises the name
	require.Equal(t, []string{"seccomp=unconfined"}, h.SecurityOpt)
	require.Equal(t, []string{"a *:* rwm"}, h.DeviceCgroupRules)
	require.Equal(t, "/dev/kmsg", h.Devices[0].PathOnHost)
	require.Equal(t, container.CgroupnsModePrivate, h.CgroupnsMode)
	require.Equal(t, []string{"127.0.0.1"}, h.DNS)
	require.Contains(t, h.Binds, c.Name+"-var:/var")
	require.True(t, info.Config.Tty)
	require.Equal(t, container.NetworkMode(r.Plane()), h.NetworkMode)
	for k, v := range map[string]string{docker.ProviderLabel: docker.ProviderName, docker.PlaneLabel: r.Plane(), docker.ClusterNamespaceLabel: "ns1", docker.ClusterLabel: "c1", docker.RoleLabel: "control-plane"} {
		require.Equal(t, v, info.Config.Labels[k], k)
	}

	// Found by labels, then removed with its volume.
	list, err := r.List(ctx, docker.Selector{Owner: owner, Role: docker.RoleControlPlane})
	require.NoError(t, err)
	require.Len(t, list, 1)
	none, err := r.List(ctx, docker.Selector{Owner: docker.Owner{Namespace: "ns1", Cluster: "c2"}})
	require.NoError(t, err)
	require.Empty(t, none)
	require.NoError(t, r.Remove(ctx, c))
	_, err = r.Inspect(ctx, c.Name)
	require.ErrorIs(t, err, docker.ErrNotFound)
	_, err = docker.EngineClient(r).VolumeInspect(ctx, c.Name+"-var")
	require.Error(t, err, "the /var volume must go with its container")
	require.NoError(t, r.Remove(ctx, c), "removing twice is fine")
}

func TestCreate_PublishesOnLoopbackOnly(t *testing.T) {
	r := newTestRuntime(t)
	ctx := context.Background()
	require.NoError(t, r.EnsureNetworks(ctx))
	c, err := r.Create(ctx, docker.ContainerSpec{Name: r.Plane() + "-lb", Image: testImage, Owner: owner, Role: docker.RoleLoadBalancer, PublishTCP: 6443})
	require.NoError(t, err)
	port := c.HostPorts[6443]
	require.Positive(t, port, "published port")
	require.NotEmpty(t, c.IPv4, "the load balancer must also be on the internal network")
	info, err := docker.EngineClient(r).ContainerInspect(ctx, c.ID)
	require.NoError(t, err)
	for _, b := range info.NetworkSettings.Ports["6443/tcp"] {
		require.Equal(t, "127.0.0.1", b.HostIP)
	}
	require.Eventually(t, func() bool {
		conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
		if err != nil {
			return false
		}
		_ = conn.Close()
		return true
	}, 30*time.Second, 200*time.Millisecond, "haproxy answers on 127.0.0.1:%d", port)

	// Asking for the same host port again (a re-created load balancer keeps its endpoint).
	require.NoError(t, r.Remove(ctx, c))
	again, err := r.Create(ctx, docker.ContainerSpec{Name: r.Plane() + "-lb", Image: testImage, Owner: owner, Role: docker.RoleLoadBalancer, PublishTCP: 6443, HostPort: port})
	require.NoError(t, err)
	require.Equal(t, port, again.HostPorts[6443])
}

func TestExecAndWriteFile(t *testing.T) {
	r := newTestRuntime(t)
	ctx := context.Background()
	require.NoError(t, r.EnsureNetworks(ctx))
	c, err := r.Create(ctx, docker.ContainerSpec{Name: r.Plane() + "-w", Image: testImage, Owner: owner, Role: docker.RoleWorker})
	require.NoError(t, err)

	res, err := r.Exec(ctx, c, strings.NewReader("from stdin"), "sh", "-c", "cat; echo oops >&2; exit 3")
	require.NoError(t, err)
	require.Equal(t, docker.ExecResult{Stdout: "from stdin", Stderr: "oops\n", ExitCode: 3}, res)

	path := "/tmp/dir with space/it's.conf"
	require.NoError(t, r.WriteFile(ctx, c, docker.File{Path: path, Content: []byte("one\n"), Mode: 0o600, Owner: "nobody:nogroup"}))
	require.NoError(t, r.WriteFile(ctx, c, docker.File{Path: path, Content: []byte("two\n"), Mode: 0o640, Owner: "nobody:nogroup", Append: true}))
	got, err := r.ReadFile(ctx, c, path)
	require.NoError(t, err)
	require.Equal(t, "one\ntwo\n", string(got))
	res, err = r.Exec(ctx, c, nil, "stat", "-c", "%a %U:%G", path)
	require.NoError(t, err)
	require.Equal(t, "640 nobody:nogroup\n", res.Stdout)

	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB through stdin
	require.NoError(t, r.WriteFile(ctx, c, docker.File{Path: "/tmp/big", Content: big, Mode: 0o644}))
	got, err = r.ReadFile(ctx, c, "/tmp/big")
	require.NoError(t, err)
	require.Equal(t, len(big), len(got))
	require.Error(t, r.WriteFile(ctx, c, docker.File{Path: "relative", Mode: 0o644}))
}

func TestRuntime_NeverActsOnContainersWithoutOurLabels(t *testing.T) {
	r := newTestRuntime(t)
	ctx := context.Background()
	require.NoError(t, r.EnsureNetworks(ctx))
	name := r.Plane() + "-foreign"
	created, err := docker.EngineClient(r).ContainerCreate(ctx, &container.Config{Image: testImage, Labels: map[string]string{"io.capstan.test": name}},
		&container.HostConfig{NetworkMode: "none"}, nil, nil, name)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = docker.EngineClient(r).ContainerRemove(context.Background(), created.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	})
	_, err = r.Inspect(ctx, name)
	require.ErrorIs(t, err, docker.ErrNotOurs)
	forged := &docker.Container{ID: created.ID, Name: name}
	require.ErrorIs(t, r.Remove(ctx, forged), docker.ErrNotOurs)
	require.ErrorIs(t, r.Signal(ctx, forged, "SIGKILL"), docker.ErrNotOurs)
	_, err = r.Exec(ctx, forged, nil, "true")
	require.ErrorIs(t, err, docker.ErrNotOurs)
	_, err = docker.EngineClient(r).ContainerInspect(ctx, created.ID)
	require.NoError(t, err, "the foreign container must still exist")
	list, err := r.List(ctx, docker.Selector{})
	require.NoError(t, err)
	require.Empty(t, list)

	// Another plane's container is not ours either.
	other, err := docker.New(r.Plane() + "-other")
	require.NoError(t, err)
	defer other.Close()
	c, err := r.Create(ctx, docker.ContainerSpec{Name: r.Plane() + "-mine", Image: testImage, Owner: owner, Role: docker.RoleWorker})
	require.NoError(t, err)
	_, err = other.Inspect(ctx, c.Name)
	require.ErrorIs(t, err, docker.ErrNotOurs)
	require.ErrorIs(t, other.Remove(ctx, c), docker.ErrNotOurs)
}

func TestWatchContainers_ReportsStartAndDestroyOfOurContainers(t *testing.T) {
	r := newTestRuntime(t)
	require.NoError(t, r.EnsureNetworks(context.Background()))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	events, errs := r.WatchContainers(ctx)
	c, err := r.Create(ctx, docker.ContainerSpec{Name: r.Plane() + "-cp", Image: testImage, Owner: owner, Role: docker.RoleControlPlane})
	require.NoError(t, err)
	require.NoError(t, r.Remove(ctx, c))
	var seen []string
	for len(seen) < 3 {
		select {
		case ev := <-events:
			require.Equal(t, owner, ev.Owner)
			require.Equal(t, docker.RoleControlPlane, ev.Role)
			require.Equal(t, c.Name, ev.Name)
			seen = append(seen, ev.Action)
		case err := <-errs:
			t.Fatalf("event stream ended: %v (seen %v)", err, seen)
		case <-ctx.Done():
			t.Fatalf("events seen: %v", seen)
		}
	}
	require.Equal(t, []string{"start", "die", "destroy"}, seen)
	cancel()
	require.NoError(t, <-errs)
}

// TestRemovePlane_LeavesNothingLabelled is the cleanup the other tests rely on.
func TestRemovePlane_LeavesNothingLabelled(t *testing.T) {
	r := newTestRuntime(t)
	ctx := context.Background()
	require.NoError(t, r.EnsureNetworks(ctx))
	_, err := r.Create(ctx, docker.ContainerSpec{Name: r.Plane() + "-n", Image: testImage, Owner: owner, Role: docker.RoleWorker, Node: true})
	require.NoError(t, err)
	require.NoError(t, r.RemovePlane(ctx))
	f := filters.NewArgs(filters.Arg("label", docker.PlaneLabel+"="+r.Plane()))
	cs, err := docker.EngineClient(r).ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	require.NoError(t, err)
	require.Empty(t, cs)
	ns, err := docker.EngineClient(r).NetworkList(ctx, network.ListOptions{Filters: f})
	require.NoError(t, err)
	require.Empty(t, ns, fmt.Sprintf("%v", ns))
	vs, err := docker.EngineClient(r).VolumeList(ctx, volume.ListOptions{Filters: f})
	require.NoError(t, err)
	require.Empty(t, vs.Volumes)
}

// TestNew_ARuntimeIsSafeToShareFromItsFirstRequest: the Docker and the Dev controllers start
// their event watches on one Runtime at the same moment. The Docker client negotiates its API
// version on its first request while Events reads the version without a lock, so under -race
// (make test) two first watches on a Runtime that had not negotiated yet were a data race.
func TestNew_ARuntimeIsSafeToShareFromItsFirstRequest(t *testing.T) {
	r, err := docker.New(dockertest.Plane(t.Name()))
	require.NoError(t, err)
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := r.Ping(ctx); err != nil {
		t.Skipf("no Docker Engine answers (run `make docker-up`): %v", err)
	}
	var wg sync.WaitGroup
	errs := make([]<-chan error, 4)
	for i := range errs {
		wg.Go(func() { _, errs[i] = r.WatchContainers(ctx) })
	}
	wg.Wait()
	cancel()
	for _, e := range errs {
		require.NoError(t, <-e)
	}
}
