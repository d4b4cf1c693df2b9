// Package apitest starts the real kube-apiserver the Docker provider's API and controller tests
// run against: the core CRDs and this module's CRDs installed, a scheme holding this module's
// group. It owns nothing else; Docker objects are the tests' own business.
package apitest

import (
	"testing"

	kruntime "k8s.io/apimachinery/pkg/runtime"

	"capstan.dev/contracts/envtest"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// Run is TestMain's body.
func Run(m *testing.M, env **envtest.Environment) int {
	return envtest.RunWithOwnModuleCRDs(m, env, infrav1.AddToScheme)
}

// Scheme returns client-go's and the core types plus this module's groups.
func Scheme() (*kruntime.Scheme, error) {
	return envtest.DefaultSchemeWith(infrav1.AddToScheme)
}
