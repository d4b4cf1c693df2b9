package example_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conformance"
	bootstrapv1 "capstan.dev/contracts/conformance/example/api/bootstrap/v1alpha1"
	infrav1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha1"
	examplecontroller "capstan.dev/contracts/conformance/example/controller"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/ipamprovider"
)

var env *envtest.Environment

// The API server gets the core CRDs (the ipam ones among them), the example's generated ones and
// the test IPAM provider's pool kind.
func TestMain(m *testing.M) {
	scheme, err := envtest.DefaultSchemeWith(infrav1.AddToScheme, bootstrapv1.AddToScheme)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pool, err := ipamprovider.CRD()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(envtest.Run(m, envtest.Options{CRDDirectoryPaths: []string{"config/crd/bases"}, Scheme: scheme,
		CRDs: []*apiextensionsv1.CustomResourceDefinition{pool}}, &env))
}

// startProvider runs the example reconcilers until the test ends, in a manager of
// the test's own, acting only on objects labelled with the returned watch-filter
// value (tests share the API server, and earlier tests' objects stay in it).
// wrap, when set, stands between the reconcilers and the API server: that is how
// the broken variants break the example.
func startProvider(t *testing.T, wrap func(client.Client) client.Client) (filter string) {
	t.Helper()
	filter = "t-" + utilrand.String(8)
	mgr := env.NewManager(t, "example-"+filter, env.Config)
	c := mgr.GetClient()
	if wrap != nil {
		c = wrap(c)
	}
	opts := controller.Options{SkipNameValidation: ptr.To(true)}
	for _, setup := range []func() error{
		func() error {
			return (&examplecontroller.ExampleClusterReconciler{Client: c, WatchFilterValue: filter}).SetupWithManager(mgr, opts)
		},
		func() error {
			return (&examplecontroller.ExampleMachineReconciler{Client: c, WatchFilterValue: filter}).SetupWithManager(mgr, opts)
		},
		func() error {
			return (&examplecontroller.ExampleConfigReconciler{Client: c, WatchFilterValue: filter}).SetupWithManager(mgr, opts)
		},
	} {
		if err := setup(); err != nil {
			t.Fatalf("setting up the example controllers: %v", err)
		}
	}
	envtest.StartManager(t, mgr)
	return filter
}

// input is the kit's Input for one example kind: objects built from the typed API,
// and every object the kit creates labelled with the provider's watch filter.
func input(filter string, gvk schema.GroupVersionKind) conformance.Input {
	return conformance.Input{
		Client: env.Client,
		GVK:    gvk,
		NewObject: func(namespace, name string) *unstructured.Unstructured {
			obj, err := env.Scheme.New(gvk)
			if err != nil {
				panic(err)
			}
			if cfg, ok := obj.(*bootstrapv1.ExampleConfig); ok {
				cfg.Spec.Commands = []string{"echo hello"}
			}
			o := obj.(client.Object)
			o.SetNamespace(namespace)
			o.SetName(name)
			m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			if err != nil {
				panic(err)
			}
			u := &unstructured.Unstructured{Object: m}
			u.SetGroupVersionKind(gvk)
			return u
		},
		Timeout:     20 * time.Second,
		PauseWindow: 2 * time.Second,
		Prepare: func(f *conformance.Fixture) {
			objs := []client.Object{f.Cluster, f.Object}
			if f.Machine != nil {
				objs = append(objs, f.Machine)
			}
			for _, o := range objs {
				labels := o.GetLabels()
				if labels == nil {
					labels = map[string]string{}
				}
				labels[clusterv1.WatchLabel] = filter
				o.SetLabels(labels)
			}
		},
	}
}
