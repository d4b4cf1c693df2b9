package clusterclass

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
	runtimeclient "capstan.dev/core/internal/runtime/client"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(coretest.Run(m, &env)) }

const timeout = 30 * time.Second

// startController runs the controller, as cfg (nil: the admin), counting through calls (nil: not).
func startController(t *testing.T, cfg *rest.Config, calls *envtest.CallCounter) {
	t.Helper()
	startControllerWith(t, cfg, calls, nil)
}

// startControllerWith is startController calling Runtime Extensions through rc.
func startControllerWith(t *testing.T, cfg *rest.Config, calls *envtest.CallCounter, rc *runtimeclient.Client) {
	t.Helper()
	if cfg == nil {
		cfg = env.Config
	}
	mgr := coretest.NewManagerAs(t, env, cfg)
	c := mgr.GetClient()
	if calls != nil {
		c = calls.Wrap(c)
	}
	r := &Reconciler{Client: c, Runtime: rc}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	coretest.StartManager(t, mgr)
}

func ref(gvk schema.GroupVersionKind, name string) clusterv1.ClusterClassTemplateReference {
	return clusterv1.ClusterClassTemplateReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: name}
}

// newClass returns a class whose templates are all generic ones (the controller does not care
// about kinds): infra and control plane share one, the workers use two more.
func newClass(ns string) *clusterv1.ClusterClass {
	return &clusterv1.ClusterClass{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "quick-start"},
		Spec: clusterv1.ClusterClassSpec{
			Infrastructure: clusterv1.InfrastructureClass{TemplateRef: ref(crds.GenericInfrastructureMachineTemplateGVK, "cluster")},
			ControlPlane:   clusterv1.ControlPlaneClass{TemplateRef: ref(crds.GenericInfrastructureMachineTemplateGVK, "cluster")},
			Workers: clusterv1.WorkersClass{MachineDeployments: []clusterv1.MachineDeploymentClass{{
				Class:          "default-worker",
				Bootstrap:      clusterv1.WorkerClassBootstrapTemplate{TemplateRef: ref(crds.GenericBootstrapConfigTemplateGVK, "workers")},
				Infrastructure: clusterv1.WorkerClassInfrastructureTemplate{TemplateRef: ref(crds.GenericInfrastructureMachineTemplateGVK, "workers")},
			}}},
		},
	}
}

func schemaOf(t *testing.T, s string) clusterv1.VariableSchema {
	t.Helper()
	var p clusterv1.JSONSchemaProps
	require.NoError(t, json.Unmarshal([]byte(s), &p))
	return clusterv1.VariableSchema{OpenAPIV3Schema: p}
}

func newTemplate(t *testing.T, gvk schema.GroupVersionKind, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := crds.New(gvk, ns, name)
	require.NoError(t, unstructured.SetNestedMap(u.Object, map[string]any{"spec": map[string]any{}}, "spec", "template"))
	require.NoError(t, env.Client.Create(context.Background(), u))
	return u
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	require.NoError(t, env.Client.Create(context.Background(), obj))
}

// waitCondition waits until the class has the condition with status and a message containing
// want, and returns the class as read then.
func waitCondition(t *testing.T, cc *clusterv1.ClusterClass, condType string, status metav1.ConditionStatus, want string) *clusterv1.ClusterClass {
	t.Helper()
	got := &clusterv1.ClusterClass{}
	envtest.WaitFor(t, timeout, condType+" "+string(status)+" saying "+want, func() (bool, error) {
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(cc), got); err != nil {
			return false, err
		}
		c := conditions.Get(got, condType)
		return c != nil && c.Status == status && strings.Contains(c.Message, want), nil
	})
	return got
}

// ownedBy reports whether obj lists cc among its owners.
func ownedBy(t *testing.T, obj *unstructured.Unstructured, cc *clusterv1.ClusterClass) bool {
	t.Helper()
	cur := obj.DeepCopy()
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), cur))
	for _, o := range cur.GetOwnerReferences() {
		if o.UID == cc.UID && o.Kind == clusterv1.ClusterClassKind {
			return true
		}
	}
	return false
}
