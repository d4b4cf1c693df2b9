package ipamprovider_test

import (
	"fmt"
	"os"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/ipamprovider"
)

// env is a real kube-apiserver with the core CRDs (the ipam ones among them) and TestIPPool.
var env *envtest.Environment

func TestMain(m *testing.M) {
	crd, err := ipamprovider.CRD()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(envtest.Run(m, envtest.Options{CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}}, &env))
}
