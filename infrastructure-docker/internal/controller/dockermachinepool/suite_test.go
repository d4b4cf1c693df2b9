package dockermachinepool

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"
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
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/node/nodetest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(apitest.Run(m, &env)) }

// startManager runs the DockerMachinePool controller (and its ClusterCache) in a new manager,
// as cfg's user (nil: an administrator), and returns the function that stops it.
func startManager(t *testing.T, rt *docker.Runtime, cfg *rest.Config, opts ...func(*Reconciler)) (stop func()) {
	t.Helper()
	if cfg == nil {
		cfg = env.Config
	}
	mgr := env.NewManager(t, "infrastructure-docker", cfg)
	cc := nodetest.ClusterCache(t, mgr, rt)
	r := &Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Docker: rt, Workload: cc, WatchFilterValue: rt.Plane(),
		Recorder: events.New(mgr, "dockermachinepool-controller")}
	for _, o := range opts {
		o(r)
	}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	return envtest.StartManager(t, mgr)
}

// counted makes startManager's reconciler count its client calls and Events through counter.
func counted(counter *envtest.CallCounter) func(*Reconciler) {
	return func(r *Reconciler) {
		r.Client = counter.Wrap(r.Client)
		r.Recorder = counter.WrapRecorder(r.Recorder)
	}
}

// poolOptions shape newPool's objects.
type poolOptions struct {
	// replicas of the MachinePool; nil leaves spec.replicas unset (1).
	replicas *int32
	// noDataSecret leaves the MachinePool without spec.template.spec.bootstrap.dataSecretName.
	noDataSecret bool
	// noOwner creates the DockerMachinePool without its owner reference to the MachinePool.
	noOwner bool
	// mutate changes the DockerMachinePool before it is created.
	mutate func(*infrav1.DockerMachinePool)
}

// newPool creates the bootstrap data Secret holding data, a MachinePool using it, and its
// DockerMachinePool owned by the MachinePool, as the core's MachinePool controller leaves them.
// Both are named <plane-hash>-<name>, so that the instances' Nodes (cluster-scoped) of different
// tests never collide.
func newPool(t *testing.T, f *nodetest.Fixture, name, data string, o poolOptions) (*clusterv1.MachinePool, *infrav1.DockerMachinePool) {
	t.Helper()
	ctx := context.Background()
	name = f.Name(name)
	secretName := name + "-bootstrap"
	f.BootstrapSecret(t, secretName, data)
	bootstrap := clusterv1.Bootstrap{DataSecretName: ptr.To(secretName)}
	if o.noDataSecret {
		bootstrap = clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfig", Name: name}}
	}
	mp := &clusterv1.MachinePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.NS, Name: name, Labels: f.Labels()},
		Spec: clusterv1.MachinePoolSpec{
			ClusterName: f.Cluster.Name,
			Replicas:    o.replicas,
			Template: clusterv1.MachineTemplateSpec{Spec: clusterv1.MachineSpec{
				ClusterName:       f.Cluster.Name,
				Version:           "v1.37.2",
				Bootstrap:         bootstrap,
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "DockerMachinePool", Name: name},
			}},
		},
	}
	require.NoError(t, env.Client.Create(ctx, mp))
	pool := &infrav1.DockerMachinePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.NS, Name: name, Labels: f.Labels()},
		Spec:       infrav1.DockerMachinePoolSpec{Template: infrav1.DockerMachinePoolMachineTemplate{CustomImage: nodetest.TestImage}},
	}
	if !o.noOwner {
		pool.OwnerReferences = ownerRefs(mp)
	}
	if o.mutate != nil {
		o.mutate(pool)
	}
	require.NoError(t, env.Client.Create(ctx, pool))
	return mp, pool
}

func ownerRefs(mp *clusterv1.MachinePool) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachinePool", Name: mp.Name,
		UID: mp.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
}

// fakeBootstrapData writes content to /opt/capstan-test/data.txt, appends a line to
// /opt/capstan-test/runs (a second bootstrap would show), and writes the success sentinel.
func fakeBootstrapData(content string) string {
	return fmt.Sprintf(`#cloud-config
write_files:
- path: /opt/capstan-test/data.txt
  content: |
    %s
runcmd:
- [sh, -c, "echo ran >> /opt/capstan-test/runs"]
- mkdir -p /run/cluster-api && echo success > /run/cluster-api/bootstrap-success.complete
`, content)
}

// scale sets the MachinePool's spec.replicas.
func scale(t *testing.T, mp *clusterv1.MachinePool, replicas int32) {
	t.Helper()
	envtest.Update(t, env.Client, mp, func() { mp.Spec.Replicas = ptr.To(replicas) })
}

// waitPool waits until check accepts the DockerMachinePool and returns it as last read.
func waitPool(t *testing.T, pool *infrav1.DockerMachinePool, timeout time.Duration, what string, check func(*infrav1.DockerMachinePool) error) *infrav1.DockerMachinePool {
	t.Helper()
	got := &infrav1.DockerMachinePool{}
	envtest.WaitFor(t, timeout, "DockerMachinePool "+pool.Name+": "+what, func() (bool, error) {
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(pool), got); err != nil {
			return false, err
		}
		if err := check(got); err != nil {
			return false, fmt.Errorf("%w; status: %+v", err, got.Status)
		}
		return true, nil
	})
	return got
}

// provisionedWith accepts a pool that is provisioned with n instances, all bootstrapped, listed
// in spec.providerIDList.
func provisionedWith(n int) func(*infrav1.DockerMachinePool) error {
	return func(p *infrav1.DockerMachinePool) error {
		bootstrapped := 0
		for _, in := range p.Status.Instances {
			if in.Bootstrapped {
				bootstrapped++
			}
		}
		if !ptr.Deref(p.Status.Initialization.Provisioned, false) || p.Status.Replicas != int32(n) || //nolint:gosec // small test numbers
			len(p.Spec.ProviderIDList) != n || len(p.Status.Instances) != n || bootstrapped != n {
			return fmt.Errorf("want %d bootstrapped instances; providerIDList %v", n, p.Spec.ProviderIDList)
		}
		return nil
	}
}

// poolContainers lists the plane's containers of the DockerMachinePool, sorted by name.
func poolContainers(t *testing.T, rt *docker.Runtime, pool *infrav1.DockerMachinePool) []docker.Container {
	t.Helper()
	list, err := rt.List(context.Background(), selector(pool))
	require.NoError(t, err)
	return list
}

// names are the containers' names, sorted.
func names(containers []docker.Container) []string {
	out := make([]string, 0, len(containers))
	for _, c := range containers {
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}

// providerIDs are the provider IDs of the containers, sorted.
func providerIDs(containers []docker.Container) []string {
	out := make([]string, 0, len(containers))
	for _, n := range names(containers) {
		out = append(out, "docker:////"+n)
	}
	return out
}

// instanceRecorder watches the DockerMachinePool and remembers every instance name any of its
// versions recorded: a container created and removed again between two looks at the engine
// shows there, because every creation is followed by a status write that lists it.
type instanceRecorder struct {
	mu       sync.Mutex
	names    map[string]bool
	versions map[string]bool
}

func recordInstances(t *testing.T, pool *infrav1.DockerMachinePool) *instanceRecorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := env.Client.Watch(ctx, &infrav1.DockerMachinePoolList{}, client.InNamespace(pool.Namespace),
		client.MatchingFields{"metadata.name": pool.Name})
	require.NoError(t, err)
	rec := &instanceRecorder{names: map[string]bool{}, versions: map[string]bool{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*infrav1.DockerMachinePool)
			if !ok {
				continue
			}
			rec.mu.Lock()
			rec.versions[p.ResourceVersion] = true
			for _, in := range p.Status.Instances {
				rec.names[in.InstanceName] = true
			}
			rec.mu.Unlock()
		}
	}()
	t.Cleanup(func() { w.Stop(); cancel(); <-done })
	return rec
}

// namesUpTo waits until the watch delivered the version of got, and returns every instance name
// recorded up to then, sorted.
func (r *instanceRecorder) namesUpTo(t *testing.T, got *infrav1.DockerMachinePool) []string {
	t.Helper()
	envtest.WaitFor(t, 10*time.Second, "the watch to deliver resourceVersion "+got.ResourceVersion, func() (bool, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.versions[got.ResourceVersion], nil
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.names))
	for n := range r.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
