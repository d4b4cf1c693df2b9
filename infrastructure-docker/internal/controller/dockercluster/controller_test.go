package dockercluster

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	dockerclient "github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// loadBalancers lists the load-balancer containers of a cluster.
func loadBalancers(t *testing.T, rt *docker.Runtime, ns, cluster string) []docker.Container {
	t.Helper()
	list, err := rt.List(context.Background(), docker.Selector{Owner: docker.Owner{Namespace: ns, Cluster: cluster}, Role: docker.RoleLoadBalancer})
	require.NoError(t, err)
	return list
}

// haproxyConfig reads the load balancer's configuration file.
func haproxyConfig(rt *docker.Runtime, name string) (string, error) {
	ctx := context.Background()
	lb, err := rt.Inspect(ctx, name)
	if err != nil {
		return "", err
	}
	b, err := rt.ReadFile(ctx, lb, haproxyConfigPath)
	return string(b), err
}

// waitConfig waits until the load balancer's configuration lists exactly the servers.
func waitConfig(t *testing.T, rt *docker.Runtime, lbName string, servers ...docker.Container) {
	t.Helper()
	envtest.WaitFor(t, 60*time.Second, fmt.Sprintf("%s configured with %d servers", lbName, len(servers)), func() (bool, error) {
		cfg, err := haproxyConfig(rt, lbName)
		if err != nil {
			return false, err
		}
		if got := strings.Count(cfg, "  server "); got != len(servers) {
			return false, fmt.Errorf("%d servers in:\n%s", got, cfg)
		}
		for _, s := range servers {
			if line := fmt.Sprintf("  server %s %s:6443 check check-ssl verify none\n", s.Name, s.IPv4); !strings.Contains(cfg, line) {
				return false, fmt.Errorf("no %q in:\n%s", line, cfg)
			}
		}
		return true, nil
	})
}

// fakeControlPlane starts a plain labelled container standing for a control-plane node.
func fakeControlPlane(t *testing.T, rt *docker.Runtime, ns, cluster, name string) docker.Container {
	t.Helper()
	c, err := rt.Create(context.Background(), docker.ContainerSpec{Name: name, Image: testImage,
		Owner: docker.Owner{Namespace: ns, Cluster: cluster}, Role: docker.RoleControlPlane})
	require.NoError(t, err)
	return *c
}

func TestDockerCluster_CreatesLoadBalancerPublishesEndpointAndFollowsControlPlane(t *testing.T) {
	rt := dockerFor(t)
	startController(t, env.Config, rt)
	ns := env.CreateNamespace(t, "dc")
	_, dc := newCluster(t, rt, ns, "alpha", func(dc *infrav1.DockerCluster) {
		dc.Spec.FailureDomains = []clusterv1.FailureDomain{{Name: "fd-b"}, {Name: "fd-a", ControlPlane: ptr.To(true)}}
	})

	got := waitProvisioned(t, dc)
	lbs := loadBalancers(t, rt, ns, "alpha")
	require.Len(t, lbs, 1)
	lb := lbs[0]
	require.Equal(t, "alpha-lb", lb.Name)
	require.Equal(t, clusterv1.APIEndpoint{Host: "127.0.0.1", Port: int32(lb.HostPorts[6443])}, got.Spec.ControlPlaneEndpoint)
	require.Equal(t, lb.IPv4+":6443", got.Annotations[infrav1.LoadBalancerAddressAnnotation])
	require.Equal(t, []string{"fd-a", "fd-b"}, []string{got.Status.FailureDomains[0].Name, got.Status.FailureDomains[1].Name})
	require.True(t, got.Status.Conditions != nil)
	waitCondition(t, dc, infrav1.DockerClusterReadyCondition, metav1.ConditionTrue, infrav1.DockerClusterReadyReason, "")
	require.Contains(t, got.Finalizers, infrav1.ClusterFinalizer)
	// The management side reaches the load balancer on the published loopback port.
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(got.Spec.ControlPlaneEndpoint.Port))), 5*time.Second)
	require.NoError(t, err)
	_ = conn.Close()
	waitConfig(t, rt, "alpha-lb")

	// Control-plane containers come 1→3: the configuration follows, and HAProxy keeps running.
	cp0 := fakeControlPlane(t, rt, ns, "alpha", "alpha-cp-0")
	waitConfig(t, rt, "alpha-lb", cp0)
	cp1 := fakeControlPlane(t, rt, ns, "alpha", "alpha-cp-1")
	cp2 := fakeControlPlane(t, rt, ns, "alpha", "alpha-cp-2")
	// Another cluster's node must not be listed.
	fakeControlPlane(t, rt, ns, "beta", "beta-cp-0")
	waitConfig(t, rt, "alpha-lb", cp0, cp1, cp2)
	res, err := rt.Exec(context.Background(), &lb, nil, "haproxy", "-c", "-f", haproxyConfigPath)
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, "%s", res)

	// And 3→1: the removed ones leave the configuration.
	require.NoError(t, rt.Remove(context.Background(), &cp0))
	require.NoError(t, rt.Remove(context.Background(), &cp2))
	waitConfig(t, rt, "alpha-lb", cp1)
	after, err := rt.Inspect(context.Background(), "alpha-lb")
	require.NoError(t, err)
	require.True(t, after.Running, "haproxy exited after reloads")
	require.Equal(t, lb.ID, after.ID)
}

func TestDockerCluster_WaitsForTheClusterOwnerReference(t *testing.T) {
	rt := dockerFor(t)
	startController(t, env.Config, rt)
	ns := env.CreateNamespace(t, "dc")
	cluster, dc := newCluster(t, rt, ns, "orphan", func(dc *infrav1.DockerCluster) { dc.OwnerReferences = nil })

	waitCondition(t, dc, infrav1.DockerClusterReadyCondition, metav1.ConditionFalse, infrav1.DockerClusterNotReadyReason,
		"Waiting for the Cluster controller to set an owner reference")
	require.Empty(t, loadBalancers(t, rt, ns, "orphan"))

	got := dc.DeepCopy()
	envtest.Update(t, env.Client, got, func() { got.OwnerReferences = []metav1.OwnerReference{ownerRef(cluster)} })
	waitProvisioned(t, dc)
	require.Len(t, loadBalancers(t, rt, ns, "orphan"), 1)
}

func TestDockerCluster_PausedClusterIsNotReconciled(t *testing.T) {
	rt := dockerFor(t)
	startController(t, env.Config, rt)
	ns := env.CreateNamespace(t, "dc")
	_, dc := newCluster(t, rt, ns, "paused", func(dc *infrav1.DockerCluster) {
		dc.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
	})
	waitCondition(t, dc, clusterv1.PausedCondition, metav1.ConditionTrue, clusterv1.PausedReason, "remove it to resume")
	require.Empty(t, loadBalancers(t, rt, ns, "paused"))

	got := dc.DeepCopy()
	envtest.Update(t, env.Client, got, func() { delete(got.Annotations, clusterv1.PausedAnnotation) })
	waitProvisioned(t, dc)
	waitCondition(t, dc, clusterv1.PausedCondition, metav1.ConditionFalse, clusterv1.NotPausedReason, "")
}

func TestDockerCluster_DeleteWaitsForDockerMachinesThenRemovesTheLoadBalancer(t *testing.T) {
	rt := dockerFor(t)
	startController(t, env.Config, rt)
	ns := env.CreateNamespace(t, "dc")
	ctx := context.Background()
	_, dc := newCluster(t, rt, ns, "gamma")
	waitProvisioned(t, dc)
	require.Len(t, loadBalancers(t, rt, ns, "gamma"), 1)

	dm := &infrav1.DockerMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gamma-cp-0",
		Labels: map[string]string{clusterv1.ClusterNameLabel: "gamma"}}}
	require.NoError(t, env.Client.Create(ctx, dm))
	require.NoError(t, env.Client.Delete(ctx, dc))
	waitCondition(t, dc, infrav1.DockerClusterDeletingCondition, metav1.ConditionTrue, infrav1.DockerClusterDeletingWaitingForMachinesReason,
		"Waiting for 1 DockerMachines to be deleted (gamma-cp-0)")
	waitCondition(t, dc, infrav1.DockerClusterReadyCondition, metav1.ConditionFalse, infrav1.DockerClusterNotReadyReason, "being deleted")
	require.Len(t, loadBalancers(t, rt, ns, "gamma"), 1, "the load balancer stays while nodes exist")

	require.NoError(t, env.Client.Delete(ctx, dm))
	waitGone(t, dc)
	require.Empty(t, loadBalancers(t, rt, ns, "gamma"))
	_, err := rt.Inspect(ctx, "gamma-lb")
	require.ErrorIs(t, err, docker.ErrNotFound)
}

func TestDockerCluster_RestartedControllerAdoptsTheLoadBalancer(t *testing.T) {
	rt := dockerFor(t)
	stop := startController(t, env.Config, rt)
	ns := env.CreateNamespace(t, "dc")
	_, dc := newCluster(t, rt, ns, "delta")
	before := waitProvisioned(t, dc)
	lbs := loadBalancers(t, rt, ns, "delta")
	require.Len(t, lbs, 1)
	stop()

	// Meanwhile a control-plane node appears; the new controller must configure it through the
	// existing load balancer.
	cp := fakeControlPlane(t, rt, ns, "delta", "delta-cp-0")
	startController(t, env.Config, rt)
	waitConfig(t, rt, "delta-lb", cp)

	after := loadBalancers(t, rt, ns, "delta")
	require.Len(t, after, 1, "a restarted controller must not create a second load balancer")
	require.Equal(t, lbs[0].ID, after[0].ID)
	got, err := getDockerCluster(dc)
	require.NoError(t, err)
	require.Equal(t, before.Spec.ControlPlaneEndpoint, got.Spec.ControlPlaneEndpoint)
}

func TestDockerCluster_RecreatedLoadBalancerKeepsTheEndpoint(t *testing.T) {
	rt := dockerFor(t)
	startController(t, env.Config, rt)
	ns := env.CreateNamespace(t, "dc")
	_, dc := newCluster(t, rt, ns, "eps")
	before := waitProvisioned(t, dc)
	lb := loadBalancers(t, rt, ns, "eps")[0]
	require.NoError(t, rt.Remove(context.Background(), &lb)) // the destroy event re-triggers the controller

	envtest.WaitFor(t, 60*time.Second, "a new load balancer", func() (bool, error) {
		lbs := loadBalancers(t, rt, ns, "eps")
		return len(lbs) == 1 && lbs[0].ID != lb.ID && lbs[0].Running, nil
	})
	again := loadBalancers(t, rt, ns, "eps")[0]
	require.Equal(t, int(before.Spec.ControlPlaneEndpoint.Port), again.HostPorts[6443])
}

// A port left to the engine's choice is chosen anew at every start: a restarted load balancer
// (haproxy crashed, the node or the daemon restarted) must be published on the endpoint's port
// again, or the endpoint every kubeconfig holds leads nowhere.
func TestDockerCluster_RestartedLoadBalancerIsPublishedOnTheEndpointPortAgain(t *testing.T) {
	rt := dockerFor(t)
	startController(t, env.Config, rt)
	ns := env.CreateNamespace(t, "dc")
	_, dc := newCluster(t, rt, ns, "restart")
	before := waitProvisioned(t, dc)
	lb := loadBalancers(t, rt, ns, "restart")[0]

	raw, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	require.NoError(t, err)
	t.Cleanup(func() { _ = raw.Close() })
	stopAfter := 1
	require.NoError(t, raw.ContainerRestart(context.Background(), lb.ID, container.StopOptions{Timeout: &stopAfter}))

	want := int(before.Spec.ControlPlaneEndpoint.Port)
	envtest.WaitFor(t, 60*time.Second, "the load balancer published on the endpoint's port again", func() (bool, error) {
		lbs := loadBalancers(t, rt, ns, "restart")
		if len(lbs) != 1 || !lbs[0].Running || lbs[0].HostPorts[6443] != want {
			return false, fmt.Errorf("load balancers %+v, want one running on port %d", lbs, want)
		}
		return true, nil
	})
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(want)), 5*time.Second)
	require.NoError(t, err)
	_ = conn.Close()
	got, err := getDockerCluster(dc)
	require.NoError(t, err)
	require.Equal(t, before.Spec.ControlPlaneEndpoint, got.Spec.ControlPlaneEndpoint)
}

func TestDockerCluster_RunsWithItsRBACMarkersOnly(t *testing.T) {
	rt := dockerFor(t)
	startController(t, env.UserFromRBACMarkers(t, "dockercluster-controller", "controller.go"), rt)
	ns := env.CreateNamespace(t, "dc")
	_, dc := newCluster(t, rt, ns, "rbac")
	waitProvisioned(t, dc)
	waitCondition(t, dc, infrav1.DockerClusterReadyCondition, metav1.ConditionTrue, infrav1.DockerClusterReadyReason, "")
	require.NoError(t, env.Client.Delete(context.Background(), dc))
	waitGone(t, dc)
	require.Empty(t, loadBalancers(t, rt, ns, "rbac"))
	// The Events reach the API server: the markers grant writing them.
	env.WaitForEvents(t, 30*time.Second, dc, ReasonSuccessfulCreate, 1)
	env.WaitForEvents(t, 30*time.Second, dc, ReasonSuccessfulDelete, 1)
}

func TestDockerCluster_MissingImageIsReported(t *testing.T) {
	rt := dockerFor(t)
	startController(t, env.Config, rt)
	ns := env.CreateNamespace(t, "dc")
	_, dc := newCluster(t, rt, ns, "noimg", func(dc *infrav1.DockerCluster) {
		dc.Spec.LoadBalancer.ImageRepository = "capstan-does-not-exist"
	})
	waitCondition(t, dc, infrav1.DockerClusterLoadBalancerAvailableCondition, metav1.ConditionFalse, infrav1.DockerClusterLoadBalancerNotAvailableReason,
		"Image capstan-does-not-exist/haproxy:latest is not on the Docker Engine and is never pulled")
	require.Empty(t, loadBalancers(t, rt, ns, "noimg"))
}

// waitGone waits until the DockerCluster is deleted.
func waitGone(t *testing.T, dc *infrav1.DockerCluster) {
	t.Helper()
	envtest.WaitFor(t, 60*time.Second, "DockerCluster "+dc.Name+" gone", func() (bool, error) {
		_, err := getDockerCluster(dc)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, fmt.Errorf("still there (%v)", err)
	})
}
