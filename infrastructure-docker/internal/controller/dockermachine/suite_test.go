package dockermachine

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/remote"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/apitest"
	"capstan.dev/infrastructure-docker/internal/controller/dockercluster"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/docker/dockertest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(apitest.Run(m, &env)) }

// testImage is a small local image the fake-node tests run as node containers: it has a shell
// and coreutils (what the bootstrap exec uses), no kubelet. The workload cluster of those tests
// is the envtest API server, where the tests create the Nodes.
const testImage = dockercluster.DefaultLoadBalancerImage

// dockerFor returns a Runtime on a management plane of the test's own (see dockertest).
func dockerFor(t *testing.T, images ...string) *docker.Runtime {
	t.Helper()
	return dockertest.Runtime(t, append([]string{testImage}, images...)...)
}

type managerOptions struct {
	cfg *rest.Config
	// withDockerCluster runs the DockerCluster controller in the same manager.
	withDockerCluster bool
}

// startManager runs the DockerMachine controller (and its ClusterCache) in a new manager and
// returns the function that stops it.
func startManager(t *testing.T, rt *docker.Runtime, o managerOptions) (stop func()) {
	t.Helper()
	if o.cfg == nil {
		o.cfg = env.Config
	}
	mgr := env.NewManager(t, "infrastructure-docker", o.cfg)
	// Each test's controllers see only its own objects (--watch-filter): objects of earlier
	// tests stay in the API server, and another test's controller must not build them.
	cc, err := remote.SetupWithManager(mgr, remote.Options{
		SecretReader: mgr.GetAPIReader(), WatchFilterValue: rt.Plane(), ConnectRetryInterval: time.Second,
		Controller: controller.Options{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	r := &Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Docker: rt, Workload: cc, WatchFilterValue: rt.Plane()}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	if o.withDockerCluster {
		dc := &dockercluster.Reconciler{Client: mgr.GetClient(), Docker: rt, WatchFilterValue: rt.Plane()}
		require.NoError(t, dc.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	}
	return envtest.StartManager(t, mgr)
}

// fixture is one Cluster of a test, in a namespace of its own.
type fixture struct {
	rt      *docker.Runtime
	ns      string
	cluster *clusterv1.Cluster
}

// newFixture creates a Cluster whose infrastructure is provisioned (unless notProvisioned) and
// whose workload cluster is the envtest API server itself.
func newFixture(t *testing.T, rt *docker.Runtime, name string, mutate ...func(*clusterv1.Cluster)) *fixture {
	t.Helper()
	ctx := context.Background()
	ns := env.CreateNamespace(t, "dm")
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels: map[string]string{clusterv1.WatchLabel: rt.Plane()}},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "DockerCluster", Name: name,
		}},
	}
	for _, m := range mutate {
		m(cluster)
	}
	require.NoError(t, env.Client.Create(ctx, cluster))
	env.CreateKubeconfigSecret(t, cluster)
	return &fixture{rt: rt, ns: ns, cluster: cluster}
}

func (f *fixture) setInfrastructureProvisioned(t *testing.T) {
	t.Helper()
	envtest.UpdateStatus(t, env.Client, f.cluster, func() {
		f.cluster.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	})
}

// machineOptions shape newMachine's objects.
type machineOptions struct {
	version       string
	controlPlane  bool
	noSecret      bool
	failureDomain string
	// nodeImage runs capstan/node:<version> instead of the small test image.
	nodeImage bool
	mutate    func(*infrav1.DockerMachine)
}

// newMachine creates the bootstrap data Secret, a Machine using it, and its DockerMachine owned
// by the Machine, as the core's Machine controller leaves them. The Machine and container are
// named <plane-hash>-<name> so that Nodes (cluster-scoped) of different tests never collide.
func (f *fixture) newMachine(t *testing.T, name, data string, o machineOptions) (*clusterv1.Machine, *infrav1.DockerMachine) {
	t.Helper()
	ctx := context.Background()
	if o.version == "" {
		o.version = "v1.37.2"
	}
	name = f.rt.Plane()[len(f.rt.Plane())-8:] + "-" + name
	labels := map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name, clusterv1.WatchLabel: f.rt.Plane()}
	if o.controlPlane {
		labels[clusterv1.MachineControlPlaneLabel] = ""
	}
	secretName := name + "-bootstrap"
	if !o.noSecret {
		require.NoError(t, env.Client.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: secretName, Labels: labels},
			Type:       clusterv1.ClusterSecretType, Data: map[string][]byte{"value": []byte(data), "format": []byte("cloud-config")},
		}))
	}
	machine := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name, Labels: labels},
		Spec: clusterv1.MachineSpec{
			ClusterName:       f.cluster.Name,
			Version:           o.version,
			FailureDomain:     o.failureDomain,
			Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To(secretName)},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "DockerMachine", Name: name},
		},
	}
	if o.noSecret {
		machine.Spec.Bootstrap = clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: name}}
	}
	require.NoError(t, env.Client.Create(ctx, machine))
	dm := &infrav1.DockerMachine{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name, Labels: labels,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine", Name: machine.Name,
			UID: machine.UID, Controller: ptr.To(true)}}}}
	if !o.nodeImage {
		dm.Spec.CustomImage = testImage
	}
	if o.mutate != nil {
		o.mutate(dm)
	}
	require.NoError(t, env.Client.Create(ctx, dm))
	return machine, dm
}

func getDockerMachine(dm *infrav1.DockerMachine) (*infrav1.DockerMachine, error) {
	got := &infrav1.DockerMachine{}
	err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(dm), got)
	return got, err
}

// waitCondition waits until the DockerMachine's condition has the status and reason, and its
// message contains want.
func waitCondition(t *testing.T, dm *infrav1.DockerMachine, timeout time.Duration, condType string, status metav1.ConditionStatus, reason, want string) *infrav1.DockerMachine {
	t.Helper()
	var got *infrav1.DockerMachine
	envtest.WaitFor(t, timeout, fmt.Sprintf("DockerMachine %s %s=%s %s (%q)", dm.Name, condType, status, reason, want), func() (bool, error) {
		var err error
		if got, err = getDockerMachine(dm); err != nil {
			return false, err
		}
		c := conditions.Get(got, condType)
		if c == nil || c.Status != status || c.Reason != reason || !strings.Contains(c.Message, want) {
			return false, fmt.Errorf("condition is %+v; all: %+v", c, got.Status.Conditions)
		}
		return true, nil
	})
	return got
}

// waitGone waits until the DockerMachine is deleted.
func waitGone(t *testing.T, dm *infrav1.DockerMachine) {
	t.Helper()
	envtest.WaitFor(t, 60*time.Second, "DockerMachine "+dm.Name+" gone", func() (bool, error) {
		_, err := getDockerMachine(dm)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, fmt.Errorf("still there (%v)", err)
	})
}

// createNode plays the kubelet of the fake node: it registers the Node, without a providerID,
// in the workload cluster (the envtest API server).
func createNode(t *testing.T, name string) {
	t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	require.NoError(t, env.Client.Create(context.Background(), node))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), node) })
}

// nodeContainers lists the plane's containers made for the DockerMachine.
func nodeContainers(t *testing.T, rt *docker.Runtime, dm *infrav1.DockerMachine) []docker.Container {
	t.Helper()
	list, err := rt.List(context.Background(), docker.Selector{Labels: map[string]string{DockerMachineLabel: dm.Name}})
	require.NoError(t, err)
	return list
}

// execOut runs cmd in c and returns its stdout, failing the test on a non-zero exit.
func execOut(t *testing.T, rt *docker.Runtime, c *docker.Container, cmd ...string) string {
	t.Helper()
	res, err := rt.Exec(context.Background(), c, nil, cmd...)
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, "%q: %s", cmd, res)
	return res.Stdout
}
