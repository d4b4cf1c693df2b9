package dockermachine

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/events"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/apitest"
	"capstan.dev/infrastructure-docker/internal/controller/dockercluster"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/node/nodetest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(apitest.Run(m, &env)) }

// testImage is the small image the fake-node tests run as node containers (see nodetest).
const testImage = nodetest.TestImage

// dockerFor returns a Runtime on a management plane of the test's own (see dockertest).
func dockerFor(t *testing.T, images ...string) *docker.Runtime {
	t.Helper()
	return nodetest.Docker(t, images...)
}

type managerOptions struct {
	cfg *rest.Config
	// withDockerCluster runs the DockerCluster controller in the same manager.
	withDockerCluster bool
	// counter, when set, counts the controller's client calls and Events.
	counter *envtest.CallCounter
}

// startManager runs the DockerMachine controller (and its ClusterCache) in a new manager and
// returns the function that stops it.
func startManager(t *testing.T, rt *docker.Runtime, o managerOptions) (stop func()) {
	t.Helper()
	if o.cfg == nil {
		o.cfg = env.Config
	}
	mgr := env.NewManager(t, "infrastructure-docker", o.cfg)
	cc := nodetest.ClusterCache(t, mgr, rt)
	r := &Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Docker: rt, Workload: cc, WatchFilterValue: rt.Plane()}
	if o.counter != nil {
		r.Client = o.counter.Wrap(r.Client)
		r.Recorder = o.counter.WrapRecorder(events.New(mgr, "dockermachine-controller"))
	}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	if o.withDockerCluster {
		dc := &dockercluster.Reconciler{Client: mgr.GetClient(), Docker: rt, WatchFilterValue: rt.Plane()}
		require.NoError(t, dc.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	}
	return envtest.StartManager(t, mgr)
}

// provisionLoadBalancer creates the DockerCluster the Cluster's infrastructureRef names, waits
// for the DockerCluster controller (managerOptions.withDockerCluster) to provision its load
// balancer, and plays the core's Cluster controller: it copies the endpoint into the Cluster. It
// returns the DockerCluster as last read.
func provisionLoadBalancer(t *testing.T, rt *docker.Runtime, cluster *clusterv1.Cluster) *infrav1.DockerCluster {
	t.Helper()
	ctx := context.Background()
	dc := &infrav1.DockerCluster{ObjectMeta: metav1.ObjectMeta{Namespace: cluster.Namespace, Name: cluster.Spec.InfrastructureRef.Name,
		Labels:          map[string]string{clusterv1.ClusterNameLabel: cluster.Name, clusterv1.WatchLabel: rt.Plane()},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: cluster.Name, UID: cluster.UID}},
	}}
	require.NoError(t, env.Client.Create(ctx, dc))
	envtest.WaitFor(t, 60*time.Second, "DockerCluster provisioned", func() (bool, error) {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(dc), dc); err != nil {
			return false, err
		}
		return ptr.Deref(dc.Status.Initialization.Provisioned, false), nil
	})
	envtest.Update(t, env.Client, cluster, func() { cluster.Spec.ControlPlaneEndpoint = dc.Spec.ControlPlaneEndpoint })
	return dc
}

// fixture is one Cluster of a test, in a namespace of its own (see nodetest).
type fixture struct{ *nodetest.Fixture }

// newFixture creates a Cluster whose workload cluster is the envtest API server itself.
func newFixture(t *testing.T, rt *docker.Runtime, name string, mutate ...func(*clusterv1.Cluster)) *fixture {
	t.Helper()
	return &fixture{nodetest.NewFixture(t, env, rt, name, mutate...)}
}

// machineOptions shape newMachine's objects.
type machineOptions struct {
	version      string
	controlPlane bool
	noSecret     bool
	// secretLater names the bootstrap data Secret in the Machine without creating it: the
	// container is created, and its bootstrap waits until the test creates the Secret.
	secretLater   bool
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
	name = f.Name(name)
	labels := f.Labels()
	if o.controlPlane {
		labels[clusterv1.MachineControlPlaneLabel] = ""
	}
	secretName := name + "-bootstrap"
	if !o.noSecret && !o.secretLater {
		f.BootstrapSecret(t, secretName, data)
	}
	machine := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.NS, Name: name, Labels: labels},
		Spec: clusterv1.MachineSpec{
			ClusterName:       f.Cluster.Name,
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
	dm := &infrav1.DockerMachine{ObjectMeta: metav1.ObjectMeta{Namespace: f.NS, Name: name, Labels: labels,
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
	return nodetest.WaitCondition(t, env.Client, dm, timeout, condType, status, reason, want)
}

// waitGone waits until the DockerMachine is deleted.
func waitGone(t *testing.T, dm *infrav1.DockerMachine) {
	t.Helper()
	nodetest.WaitGone(t, env.Client, dm, 60*time.Second)
}

// createNode plays the kubelet of the fake node (see nodetest).
func createNode(t *testing.T, name string) {
	t.Helper()
	nodetest.CreateNode(t, env.Client, name)
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
	return nodetest.ExecOut(t, rt, c, cmd...)
}
