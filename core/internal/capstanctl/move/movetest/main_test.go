package movetest

import (
	"fmt"
	"os"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/components"
)

// source and target are the two management clusters.
var source, target *envtest.Environment

func TestMain(m *testing.M) { os.Exit(run(m)) }

// run starts the target here and the source through envtest.Run. Run stops the source on
// a signal and before the -timeout expires; should the binary die before the deferred
// Stop, the next envtest start on this machine kills the target's processes, since
// contracts/envtest records every control plane it starts.
func run(m *testing.M) int {
	providerCRDs, err := componentCRDs()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	providerCRDs = append(providerCRDs, thirdPartyCRDs()...)
	inventory, err := inventoryCRD()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	providerCRDs = append(providerCRDs, inventory)
	target, err = envtest.Start(envtest.Options{CRDs: providerCRDs})
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting the target API server: %v\n", err)
		return 1
	}
	defer func() {
		if err := target.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stopping the target API server: %v\n", err)
		}
	}()
	return envtest.Run(m, envtest.Options{CRDs: append(providerCRDs, crds.All()...)}, &source)
}

// componentCRDs are the CRDs of every provider as capstanctl init installs them; the rest
// of the components (namespaces, RBAC, the managers' Deployments) is left out.
func componentCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	objs, err := components.Load(components.All)
	if err != nil {
		return nil, err
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, crd); err != nil {
			return nil, fmt.Errorf("decoding CRD %s: %w", o.GetName(), err)
		}
		out = append(out, crd)
	}
	return out, nil
}

// inventoryCRD is clusterctl's Provider CRD, whose entries say which namespaces hold the
// infrastructure providers' identity Secrets.
func inventoryCRD() (*apiextensionsv1.CustomResourceDefinition, error) {
	u, err := clusterctl.InventoryCRD()
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	return crd, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd)
}
