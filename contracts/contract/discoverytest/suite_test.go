// Package discoverytest checks contract discovery against a real kube-apiserver. It
// lives apart from package contract so that the accessor unit tests run without
// kube-apiserver and etcd: a TestMain starting the environment would gate every
// test in the package's test binary.
package discoverytest

import (
	"os"
	"testing"

	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

var env *envtest.Environment

func TestMain(m *testing.M) {
	os.Exit(envtest.Run(m, envtest.Options{CRDs: crds.All()}, &env))
}
