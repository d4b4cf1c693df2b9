// Package nodetest is what the envtest suites of the node-container controllers (DockerMachine,
// DockerMachinePool) share: a Docker management plane of the test's own with the small test
// image, a Cluster whose workload cluster is the envtest API server itself, the ClusterCache,
// the kubelet's part (registering Nodes), and waits on conditions with deadlines. It owns no
// controller and creates nothing it does not clean up (the plane's Docker objects through
// dockertest, Nodes through t.Cleanup; namespaced objects stay in the test's namespace).
package nodetest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/conformance"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/remote"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/controller/dockercluster"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/docker/dockertest"
)

// TestImage is a small local image the fake-node tests run as node containers: it has a shell
// and coreutils (what the bootstrap exec uses), no kubelet. The workload cluster of those tests
// is the envtest API server, where the tests create the Nodes.
const TestImage = dockercluster.DefaultLoadBalancerImage

// Docker returns a Runtime on a management plane of the test's own (see dockertest), after
// checking that TestImage and images exist.
func Docker(t *testing.T, images ...string) *docker.Runtime {
	t.Helper()
	return dockertest.Runtime(t, append([]string{TestImage}, images...)...)
}

// ClusterCache sets up the ClusterCache in mgr for the objects of rt's plane (--watch-filter):
// objects of earlier tests stay in the API server, and another test's controller must not act
// on them.
func ClusterCache(t *testing.T, mgr ctrl.Manager, rt *docker.Runtime) *remote.ClusterCache {
	t.Helper()
	cc, err := remote.SetupWithManager(mgr, remote.Options{
		SecretReader: mgr.GetAPIReader(), WatchFilterValue: rt.Plane(), ConnectRetryInterval: time.Second,
		Controller: controller.Options{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	return cc
}

// Fixture is one Cluster of a test, in a namespace of its own.
type Fixture struct {
	Env     *envtest.Environment
	RT      *docker.Runtime
	NS      string
	Cluster *clusterv1.Cluster
}

// NewFixture creates a Cluster named name (its infrastructure a DockerCluster of the same name,
// not created) whose workload cluster is the envtest API server itself, in a new namespace.
func NewFixture(t *testing.T, env *envtest.Environment, rt *docker.Runtime, name string, mutate ...func(*clusterv1.Cluster)) *Fixture {
	t.Helper()
	ns := env.CreateNamespace(t, "node")
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels: map[string]string{clusterv1.WatchLabel: rt.Plane()}},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "DockerCluster", Name: name,
		}},
	}
	for _, m := range mutate {
		m(cluster)
	}
	require.NoError(t, env.Client.Create(context.Background(), cluster))
	env.CreateKubeconfigSecret(t, cluster)
	return &Fixture{Env: env, RT: rt, NS: ns, Cluster: cluster}
}

// SetInfrastructureProvisioned plays the core's Cluster controller: the Cluster's
// infrastructure is provisioned.
func (f *Fixture) SetInfrastructureProvisioned(t *testing.T) {
	t.Helper()
	envtest.UpdateStatus(t, f.Env.Client, f.Cluster, func() {
		f.Cluster.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	})
}

// Name is name prefixed with the plane's hash: the objects' names are also container and Node
// names, and Nodes (cluster-scoped) of different tests must never collide.
func (f *Fixture) Name(name string) string {
	return f.RT.Plane()[len(f.RT.Plane())-8:] + "-" + name
}

// Labels are the labels of the fixture's objects: the cluster-name label and the watch label
// the test's controllers filter on.
func (f *Fixture) Labels() map[string]string {
	return map[string]string{clusterv1.ClusterNameLabel: f.Cluster.Name, clusterv1.WatchLabel: f.RT.Plane()}
}

// BootstrapSecret creates the bootstrap data Secret name holding data as the bootstrap
// provider writes it (key value, format cloud-config).
func (f *Fixture) BootstrapSecret(t *testing.T, name, data string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.NS, Name: name, Labels: f.Labels()},
		Type:       clusterv1.ClusterSecretType, Data: map[string][]byte{"value": []byte(data), "format": []byte("cloud-config")},
	}
	require.NoError(t, f.Env.Client.Create(context.Background(), s))
	return s
}

// ConditionsObject is an object with conditions.
type ConditionsObject interface {
	client.Object
	conditions.Getter
}

// WaitCondition waits until obj's condition has the status and reason and its message contains
// want, and returns obj as last read.
func WaitCondition[T ConditionsObject](t *testing.T, c client.Client, obj T, timeout time.Duration, condType string, status metav1.ConditionStatus, reason, want string) T {
	t.Helper()
	got := obj.DeepCopyObject().(T)
	what := fmt.Sprintf("%T %s %s=%s %s (%q)", obj, obj.GetName(), condType, status, reason, want)
	envtest.WaitFor(t, timeout, what, func() (bool, error) {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), got); err != nil {
			return false, err
		}
		cond := conditions.Get(got, condType)
		if cond == nil || cond.Status != status || cond.Reason != reason || !strings.Contains(cond.Message, want) {
			return false, fmt.Errorf("condition is %+v; all: %+v", cond, got.GetConditions())
		}
		return true, nil
	})
	return got
}

// WaitGone waits until obj is deleted.
func WaitGone(t *testing.T, c client.Client, obj client.Object, timeout time.Duration) {
	t.Helper()
	got := obj.DeepCopyObject().(client.Object)
	envtest.WaitFor(t, timeout, fmt.Sprintf("%T %s gone", obj, obj.GetName()), func() (bool, error) {
		err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), got)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, fmt.Errorf("still there (%v)", err)
	})
}

// CreateNode plays the kubelet of a fake node: it registers the Node, without a providerID, in
// the workload cluster (the envtest API server), and deletes it when the test ends.
func CreateNode(t *testing.T, c client.Client, name string) {
	t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	require.NoError(t, c.Create(context.Background(), node))
	t.Cleanup(func() { _ = c.Delete(context.Background(), node) })
}

// ExecOut runs cmd in c and returns its stdout, failing the test on a non-zero exit.
func ExecOut(t *testing.T, rt *docker.Runtime, c *docker.Container, cmd ...string) string {
	t.Helper()
	res, err := rt.Exec(context.Background(), c, nil, cmd...)
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, "%q: %s", cmd, res)
	return res.Stdout
}

// HostsEntries are the name → address lines of the provider's block in the node container's
// /etc/hosts.
func HostsEntries(t *testing.T, rt *docker.Runtime, c *docker.Container) map[string]string {
	t.Helper()
	entries := map[string]string{}
	inBlock := false
	for _, line := range strings.Split(ExecOut(t, rt, c, "cat", "/etc/hosts"), "\n") {
		switch {
		case line == "# capstan nodes begin":
			inBlock = true
		case line == "# capstan nodes end":
			inBlock = false
		case inBlock && !strings.HasPrefix(line, "#"):
			if f := strings.Fields(line); len(f) == 2 {
				entries[f[1]] = f[0]
			}
		}
	}
	return entries
}

// RunningNodes are the fixture's Cluster's running containers (it has no load balancer).
func (f *Fixture) RunningNodes(t *testing.T) []docker.Container {
	t.Helper()
	list, err := f.RT.List(context.Background(), docker.Selector{Owner: docker.Owner{Namespace: f.NS, Cluster: f.Cluster.Name}})
	require.NoError(t, err)
	var out []docker.Container
	for _, c := range list {
		if c.Running {
			out = append(out, c)
		}
	}
	return out
}

// WaitHosts waits until the fixture's Cluster has n running containers and each lists exactly
// the others, at their addresses, in the provider's block of its /etc/hosts; the containers
// named in unmanaged (made by the test, no controller's) must be listed but list nothing.
func (f *Fixture) WaitHosts(t *testing.T, n int, unmanaged ...string) {
	t.Helper()
	envtest.WaitFor(t, 30*time.Second, fmt.Sprintf("each of %d nodes lists the others in /etc/hosts", n), func() (bool, error) {
		nodes := f.RunningNodes(t)
		if len(nodes) != n {
			return false, fmt.Errorf("%d running containers", len(nodes))
		}
		for _, c := range nodes {
			if slices.Contains(unmanaged, c.Name) {
				continue
			}
			want := map[string]string{}
			for _, peer := range nodes {
				if peer.Name != c.Name {
					want[peer.Name] = peer.IPv4
				}
			}
			if got := HostsEntries(t, f.RT, &c); !maps.Equal(got, want) {
				return false, fmt.Errorf("%s lists %v, want %v", c.Name, got, want)
			}
		}
		return true, nil
	})
}

// WatchedBy returns what puts plane's watch label on an object, so that only the controllers of
// the test that owns plane act on it (the conformance kit's Prepare uses it on every object).
func WatchedBy(plane string) func(metav1.Object) {
	return func(o metav1.Object) {
		labels := o.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[clusterv1.WatchLabel] = plane
		o.SetLabels(labels)
	}
}

// KitNodeHooks are the conformance kit's Setup and NodeProviderID for an InfraMachine of the
// node-container controllers: the workload cluster is the envtest API server, where Setup
// registers the Node a container's kubelet would, named like the object (the container, its
// hostname and its Node share the object's name), and the providerID is read off that Node.
func KitNodeHooks(t *testing.T, env *envtest.Environment) (setup func(context.Context, *conformance.Fixture) error,
	nodeProviderID func(context.Context, *conformance.Fixture) (string, error)) {
	setup = func(_ context.Context, f *conformance.Fixture) error {
		env.CreateKubeconfigSecret(t, f.Cluster)
		CreateNode(t, env.Client, f.Object.GetName())
		return nil
	}
	nodeProviderID = func(ctx context.Context, f *conformance.Fixture) (string, error) {
		n := &corev1.Node{}
		err := env.Client.Get(ctx, client.ObjectKey{Name: f.Object.GetName()}, n)
		return n.Spec.ProviderID, client.IgnoreNotFound(err)
	}
	return setup, nodeProviderID
}
