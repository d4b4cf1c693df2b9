package topology

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
	runtimeclient "capstan.dev/core/internal/runtime/client"
	"capstan.dev/core/internal/topology/variables"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(coretest.Run(m, &env)) }

const timeout = 60 * time.Second

// startController runs the controller as cfg (nil: the admin), counting through calls (nil: not);
// it returns the log of server-side applies that were not dry runs, i.e. real writes.
// Generated names get a counter instead of random characters, so tests can predict them.
func startController(t *testing.T, cfg *rest.Config, calls *envtest.CallCounter) *applyLog {
	t.Helper()
	return startControllerWith(t, cfg, calls, nil)
}

// startControllerWith is startController with a Runtime SDK client (nil: none).
func startControllerWith(t *testing.T, cfg *rest.Config, calls *envtest.CallCounter, rc *runtimeclient.Client) *applyLog {
	t.Helper()
	return startControllerAt(t, cfg, calls, rc, nil)
}

// startControllerAt is startControllerWith with the Reconciler's clock (nil: time.Now).
func startControllerAt(t *testing.T, cfg *rest.Config, calls *envtest.CallCounter, rc *runtimeclient.Client, now func() time.Time) *applyLog {
	t.Helper()
	if cfg == nil {
		cfg = env.Config
	}
	mgr := coretest.NewManagerAs(t, env, cfg)
	c := mgr.GetClient()
	if calls != nil {
		c = calls.Wrap(c)
	}
	applies := &applyLog{}
	c = envtest.Intercept(c, interceptor.Funcs{
		Apply: func(ctx context.Context, cl client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			o := &client.ApplyOptions{}
			o.ApplyOptions(opts)
			if len(o.DryRun) == 0 {
				applies.add(obj)
			}
			return cl.Apply(ctx, obj, opts...)
		},
	})
	var n atomic.Int64
	r := &Reconciler{Client: c, Random: func() string { return fmt.Sprintf("n%04d", n.Add(1)) }, Runtime: rc,
		Recorder: events.New(mgr, ControllerName), Now: now}
	if calls != nil {
		r.Recorder = calls.WrapRecorder(r.Recorder)
	}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	coretest.StartManager(t, mgr)
	return applies
}

// applyLog records the real (not dry-run) server-side applies, as namespace/kind/name.
type applyLog struct {
	mu      sync.Mutex
	applied []string
}

func (l *applyLog) add(obj runtime.ApplyConfiguration) {
	what := fmt.Sprintf("%T", obj)
	if u, ok := obj.(interface {
		GetNamespace() string
		GetKind() string
		GetName() string
	}); ok {
		what = u.GetNamespace() + "/" + u.GetKind() + "/" + u.GetName()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.applied = append(l.applied, what)
}

// Load is the number of applies so far.
func (l *applyLog) Load() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.applied)
}

// SinceIn lists the applies to namespace ns after the first n applies. The controller of a test
// also reconciles the Clusters earlier tests left behind (envtest deletes no namespace's
// contents), and some of those are mid-upgrade with nobody playing their control plane: their
// writes are not this test's steady state.
func (l *applyLog) SinceIn(n int, ns string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var in []string
	for _, a := range l.applied[n:] {
		if strings.HasPrefix(a, ns+"/") {
			in = append(in, a)
		}
	}
	return in
}

func classRef(gvk schema.GroupVersionKind, name string) clusterv1.ClusterClassTemplateReference {
	return clusterv1.ClusterClassTemplateReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: name}
}

// newTemplate creates a template whose spec.template.spec is spec.
func newTemplate(t *testing.T, gvk schema.GroupVersionKind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	t.Helper()
	u := crds.New(gvk, ns, name)
	require.NoError(t, unstructured.SetNestedMap(u.Object, map[string]any{"spec": spec}, "spec", "template"))
	require.NoError(t, env.Client.Create(context.Background(), u))
	return u
}

func schemaOf(t *testing.T, s string) clusterv1.VariableSchema {
	t.Helper()
	var p clusterv1.JSONSchemaProps
	require.NoError(t, json.Unmarshal([]byte(s), &p))
	return clusterv1.VariableSchema{OpenAPIV3Schema: p}
}

func js(s string) apiextensionsv1.JSON { return apiextensionsv1.JSON{Raw: []byte(s)} }

// markReconciled plays the ClusterClass controller: observed generation, variables, VariablesReady.
func markReconciled(t *testing.T, cc *clusterv1.ClusterClass) {
	t.Helper()
	envtest.UpdateStatus(t, env.Client, cc, func() {
		cc.Status.ObservedGeneration = cc.Generation
		cc.Status.Variables = variables.StatusVariables(cc.Spec.Variables)
		conditions.Set(cc, conditions.True(clusterv1.ClusterClassVariablesReadyCondition, clusterv1.ClusterClassVariablesReadyReason, ""))
	})
}

func getCluster(c *clusterv1.Cluster) (*clusterv1.Cluster, error) {
	got := &clusterv1.Cluster{}
	return got, env.Client.Get(context.Background(), client.ObjectKeyFromObject(c), got)
}

// waitCondition waits until the Cluster has the condition with status and a message containing want.
func waitCondition(t *testing.T, c *clusterv1.Cluster, condType string, status metav1.ConditionStatus, want string) *clusterv1.Cluster {
	t.Helper()
	var got *clusterv1.Cluster
	envtest.WaitFor(t, timeout, fmt.Sprintf("Cluster %s %s=%s (%q)", c.Name, condType, status, want), func() (bool, error) {
		var err error
		if got, err = getCluster(c); err != nil {
			return false, err
		}
		cond := conditions.Get(got, condType)
		if cond == nil || cond.Status != status || !strings.Contains(cond.Message, want) {
			return false, fmt.Errorf("condition is %+v", cond)
		}
		return true, nil
	})
	return got
}

// get reads a generic object; nil when it does not exist.
func get(t *testing.T, gvk schema.GroupVersionKind, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := crds.New(gvk, ns, name)
	err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(u), u)
	if err != nil {
		require.True(t, client.IgnoreNotFound(err) == nil, "reading %s %s: %v", gvk.Kind, name, err)
		return nil
	}
	return u
}

func nestedString(t *testing.T, u *unstructured.Unstructured, path ...string) string {
	t.Helper()
	v, _, err := unstructured.NestedString(u.Object, path...)
	require.NoError(t, err)
	return v
}
