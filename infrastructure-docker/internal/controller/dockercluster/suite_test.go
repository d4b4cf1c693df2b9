package dockercluster

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/events"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/apitest"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/docker/dockertest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(apitest.Run(m, &env)) }

// testImage is a local image used both for the load balancer and as fake control-plane nodes
// (plain labelled containers: no kubeadm node is started in these tests).
const testImage = DefaultLoadBalancerImage

// dockerFor returns a Runtime on a management plane of the test's own (see dockertest).
func dockerFor(t *testing.T) *docker.Runtime {
	t.Helper()
	return dockertest.Runtime(t, testImage)
}

// startController runs the DockerCluster controller as cfg's user in a new manager and returns
// the function that stops it.
func startController(t *testing.T, cfg *rest.Config, rt *docker.Runtime) (stop func()) {
	t.Helper()
	mgr := env.NewManager(t, "infrastructure-docker", cfg)
	// Each test's controller sees only its own objects (--watch-filter): objects of earlier
	// tests stay in the apiserver, and another controller must not build them on its plane.
	r := &Reconciler{Client: mgr.GetClient(), Docker: rt, WatchFilterValue: rt.Plane()}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	return envtest.StartManager(t, mgr)
}

// startCountedController runs the DockerCluster controller with its client and Event recorder
// counted by counter, and returns the function that stops it.
func startCountedController(t *testing.T, rt *docker.Runtime, counter *envtest.CallCounter) (stop func()) {
	t.Helper()
	mgr := env.NewManager(t, "infrastructure-docker", env.Config)
	r := &Reconciler{Client: counter.Wrap(mgr.GetClient()), Docker: rt, WatchFilterValue: rt.Plane(),
		Recorder: counter.WrapRecorder(events.New(mgr, "dockercluster-controller"))}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	return envtest.StartManager(t, mgr)
}

// newCluster creates a Cluster using a DockerCluster of the same name, and that DockerCluster
// owned by the Cluster, as the core's Cluster controller would leave it.
func newCluster(t *testing.T, rt *docker.Runtime, ns, name string, mutate ...func(*infrav1.DockerCluster)) (*clusterv1.Cluster, *infrav1.DockerCluster) {
	t.Helper()
	ctx := context.Background()
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{clusterv1.WatchLabel: rt.Plane()}},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "DockerCluster", Name: name,
		}},
	}
	require.NoError(t, env.Client.Create(ctx, cluster))
	dc := &infrav1.DockerCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels:          map[string]string{clusterv1.ClusterNameLabel: name, clusterv1.WatchLabel: rt.Plane()},
		OwnerReferences: []metav1.OwnerReference{ownerRef(cluster)},
	}}
	for _, m := range mutate {
		m(dc)
	}
	require.NoError(t, env.Client.Create(ctx, dc))
	return cluster, dc
}

func ownerRef(c *clusterv1.Cluster) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: c.Name, UID: c.UID}
}

func getDockerCluster(dc *infrav1.DockerCluster) (*infrav1.DockerCluster, error) {
	got := &infrav1.DockerCluster{}
	err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(dc), got)
	return got, err
}

// waitCondition waits until the DockerCluster's condition has the status and reason, and its
// message contains want.
func waitCondition(t *testing.T, dc *infrav1.DockerCluster, condType string, status metav1.ConditionStatus, reason, want string) *infrav1.DockerCluster {
	t.Helper()
	var got *infrav1.DockerCluster
	envtest.WaitFor(t, 60*time.Second, fmt.Sprintf("DockerCluster %s %s=%s %s (%q)", dc.Name, condType, status, reason, want), func() (bool, error) {
		var err error
		if got, err = getDockerCluster(dc); err != nil {
			return false, err
		}
		c := conditions.Get(got, condType)
		if c == nil || c.Status != status || c.Reason != reason || !strings.Contains(c.Message, want) {
			return false, fmt.Errorf("condition is %+v", c)
		}
		return true, nil
	})
	return got
}

// waitProvisioned waits for status.initialization.provisioned and returns the DockerCluster.
func waitProvisioned(t *testing.T, dc *infrav1.DockerCluster) *infrav1.DockerCluster {
	t.Helper()
	var got *infrav1.DockerCluster
	envtest.WaitFor(t, 60*time.Second, "DockerCluster "+dc.Name+" provisioned", func() (bool, error) {
		var err error
		if got, err = getDockerCluster(dc); err != nil {
			return false, err
		}
		if !ptr.Deref(got.Status.Initialization.Provisioned, false) {
			return false, fmt.Errorf("conditions: %+v", got.Status.Conditions)
		}
		return true, nil
	})
	return got
}
