package clusterresourceset

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(coretest.Run(m, &env)) }

const timeout = 30 * time.Second

// controllerOptions vary the controller a test runs; zero values keep the defaults.
type controllerOptions struct {
	// cfg is the identity the manager talks to the API server with (env.Config when nil).
	cfg *rest.Config
	// wrapClient wraps the reconciler's management-cluster client (to inject faults).
	wrapClient func(client.Client) client.Client
	// calls count the reconciler's writes and their ClusterResourceSet's reads, on the
	// management cluster and on the workload clusters.
	calls []*envtest.CallCounter
	// reconciler, when set, receives the reconciler (to look into its watches).
	reconciler **Reconciler
}

// startController runs the ClusterResourceSet controller and the ClusterCache it needs in a
// fresh manager for one test, and returns a function that stops it (a crash of the process).
func startController(t *testing.T, o controllerOptions) (stop func()) {
	t.Helper()
	cfg := o.cfg
	if cfg == nil {
		cfg = env.Config
	}
	mgr := coretest.NewManagerAs(t, env, cfg)
	copts := controller.Options{SkipNameValidation: ptr.To(true)}
	// A failed connect is retried after 2 s, not the default 30 s, so a test that fixes a
	// workload cluster's kubeconfig sees the connection well within its timeout.
	cc, err := remote.SetupWithManager(mgr, remote.Options{SecretReader: mgr.GetAPIReader(), Controller: copts, ConnectRetryInterval: 2 * time.Second})
	require.NoError(t, err)
	var workload WorkloadClusters = cc
	c := mgr.GetClient()
	if o.wrapClient != nil {
		c = o.wrapClient(c)
	}
	for _, calls := range o.calls {
		c = calls.Wrap(c)
		workload = countingWorkload{WorkloadClusters: workload, calls: calls}
	}
	r := &Reconciler{Client: c, APIReader: mgr.GetAPIReader(), Workload: workload, Recorder: events.New(mgr, ControllerName)}
	for _, calls := range o.calls {
		r.Recorder = calls.WrapRecorder(r.Recorder)
	}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, copts))
	if o.reconciler != nil {
		*o.reconciler = r
	}
	return envtest.StartManager(t, mgr)
}

// countingWorkload counts the writes to workload clusters too.
type countingWorkload struct {
	WorkloadClusters
	calls *envtest.CallCounter
}

func (w countingWorkload) GetClient(ctx context.Context, cluster client.ObjectKey) (client.Client, error) {
	c, err := w.WorkloadClusters.GetClient(ctx, cluster)
	if err != nil {
		return nil, err
	}
	return w.calls.Wrap(c), nil
}

// fixture is one test's namespace; its Clusters' workload cluster is envtest itself.
type fixture struct {
	t   *testing.T
	ctx context.Context
	ns  string
}

func newFixture(t *testing.T) *fixture {
	return &fixture{t: t, ctx: context.Background(), ns: env.CreateNamespace(t, "crs")}
}

// newCluster creates a Cluster labelled cni=test, with its kubeconfig Secret and, when
// initialized, an initialized control plane.
func (f *fixture) newCluster(name string, initialized bool, mutate ...func(*clusterv1.Cluster)) *clusterv1.Cluster {
	f.t.Helper()
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns, Labels: map[string]string{"cni": "test"}},
		Spec: clusterv1.ClusterSpec{ClusterNetwork: clusterv1.ClusterNetwork{ServiceDomain: "cluster.local"},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, name)},
	}
	for _, m := range mutate {
		m(c)
	}
	require.NoError(f.t, env.Client.Create(f.ctx, c))
	if initialized {
		envtest.UpdateStatus(f.t, env.Client, c, func() { c.Status.Initialization.ControlPlaneInitialized = ptr.To(true) })
	}
	coretest.CreateKubeconfigSecret(f.t, env, c)
	return c
}

// newCRS creates a ClusterResourceSet selecting cni=test.
func (f *fixture) newCRS(name string, strategy addonsv1.ClusterResourceSetStrategy, resources ...addonsv1.ResourceRef) *addonsv1.ClusterResourceSet {
	f.t.Helper()
	crs := &addonsv1.ClusterResourceSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns},
		Spec: addonsv1.ClusterResourceSetSpec{
			ClusterSelector: clusterv1.LabelSelector{MatchLabels: map[string]string{"cni": "test"}},
			Resources:       resources,
			Strategy:        string(strategy),
		},
	}
	require.NoError(f.t, env.Client.Create(f.ctx, crs))
	return crs
}

func configMapRef(name string) addonsv1.ResourceRef {
	return addonsv1.ResourceRef{Name: name, Kind: string(addonsv1.ConfigMapClusterResourceSetResourceKind)}
}

func secretRef(name string) addonsv1.ResourceRef {
	return addonsv1.ResourceRef{Name: name, Kind: string(addonsv1.SecretClusterResourceSetResourceKind)}
}

// newConfigMap creates a ConfigMap whose data holds manifests.
func (f *fixture) newConfigMap(name string, data map[string]string) *corev1.ConfigMap {
	f.t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns}, Data: data}
	require.NoError(f.t, env.Client.Create(f.ctx, cm))
	return cm
}

// newSecret creates a Secret of type t whose data holds manifests.
func (f *fixture) newSecret(name string, t corev1.SecretType, data map[string]string) *corev1.Secret {
	f.t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns}, Type: t, StringData: data}
	require.NoError(f.t, env.Client.Create(f.ctx, s))
	return s
}

// workloadConfigMap is a manifest of a ConfigMap wl-<name> in the fixture's namespace of the
// "workload cluster", which is envtest itself: the prefix keeps applied objects apart from the
// ClusterResourceSets' own ConfigMaps.
func (f *fixture) workloadConfigMap(name, value string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wl-%s\n  namespace: %s\ndata:\n  value: %q\n", name, f.ns, value)
}

// waitWorkloadConfigMap waits for the ConfigMap workloadConfigMap describes, applied to the workload cluster to hold value.
func (f *fixture) waitWorkloadConfigMap(name, value string) *corev1.ConfigMap {
	f.t.Helper()
	cm := &corev1.ConfigMap{}
	envtest.WaitFor(f.t, timeout, fmt.Sprintf("ConfigMap %s with value %q in the workload cluster", name, value), func() (bool, error) {
		if err := env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: "wl-" + name}, cm); err != nil {
			return false, err
		}
		if cm.Data["value"] != value {
			return false, fmt.Errorf("value is %q", cm.Data["value"])
		}
		return true, nil
	})
	return cm
}

// waitCondition waits for the ClusterResourceSet's ResourcesApplied to have status and reason
// and returns it.
func (f *fixture) waitCondition(crs *addonsv1.ClusterResourceSet, status metav1.ConditionStatus, reason string) *metav1.Condition {
	f.t.Helper()
	var got *metav1.Condition
	envtest.WaitFor(f.t, timeout, fmt.Sprintf("ResourcesApplied %s %s on %s", status, reason, crs.Name), func() (bool, error) {
		cur := &addonsv1.ClusterResourceSet{}
		if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(crs), cur); err != nil {
			return false, err
		}
		got = conditions.Get(cur, addonsv1.ClusterResourceSetResourcesAppliedCondition)
		if got == nil || got.Status != status || got.Reason != reason {
			return false, fmt.Errorf("condition is %+v", got)
		}
		return true, nil
	})
	return got
}

// getBinding reads the binding of a Cluster.
func (f *fixture) getBinding(cluster string) (*addonsv1.ClusterResourceSetBinding, error) {
	b := &addonsv1.ClusterResourceSetBinding{}
	return b, env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: cluster}, b)
}

// waitApplied waits until the binding of cluster records every resource of crs as applied,
// and returns that entry.
func (f *fixture) waitApplied(cluster string, crs *addonsv1.ClusterResourceSet, refs ...addonsv1.ResourceRef) addonsv1.ResourceSetBinding {
	f.t.Helper()
	var entry addonsv1.ResourceSetBinding
	envtest.WaitFor(f.t, timeout, fmt.Sprintf("Cluster %s's binding to record %s applied", cluster, crs.Name), func() (bool, error) {
		b, err := f.getBinding(cluster)
		if err != nil {
			return false, err
		}
		for _, e := range b.Spec.Bindings {
			if e.ClusterResourceSetName != crs.Name {
				continue
			}
			entry = e
			for _, ref := range refs {
				if !resourceApplied(e, ref) {
					return false, fmt.Errorf("entry %+v", e)
				}
			}
			return true, nil
		}
		return false, fmt.Errorf("no entry in %+v", b.Spec.Bindings)
	})
	return entry
}

func resourceApplied(e addonsv1.ResourceSetBinding, ref addonsv1.ResourceRef) bool {
	for _, rb := range e.Resources {
		if rb.ResourceRef == ref {
			return ptr.Deref(rb.Applied, false)
		}
	}
	return false
}

// reconcileAgain touches a label of the ClusterResourceSet and waits until it was read again,
// twice, so the reconcile that the first touch started has finished (reconciles of one object
// never overlap).
func (f *fixture) reconcileAgain(crs *addonsv1.ClusterResourceSet, calls *envtest.CallCounter) {
	f.t.Helper()
	for i := 0; i < 2; i++ {
		gets, _ := calls.Snapshot()
		envtest.Update(f.t, env.Client, crs, func() {
			if crs.Labels == nil {
				crs.Labels = map[string]string{}
			}
			crs.Labels["test/touched"] = fmt.Sprint(time.Now().UnixNano())
		})
		envtest.WaitFor(f.t, timeout, "the ClusterResourceSet to be reconciled again", func() (bool, error) {
			got, _ := calls.Snapshot()
			return got > gets, nil
		})
	}
}
