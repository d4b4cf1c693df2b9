// Package apitest starts the real kube-apiserver the bootstrap and control plane
// API packages check their admission rules against: the core CRDs and this
// module's CRDs installed, a scheme holding both of this module's groups.
package apitest

import (
	"testing"

	kruntime "k8s.io/apimachinery/pkg/runtime"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/contracts/envtest"
)

// Run is TestMain's body.
func Run(m *testing.M, env **envtest.Environment) int {
	return envtest.RunWithOwnModuleCRDs(m, env, bootstrapv1.AddToScheme, controlplanev1.AddToScheme)
}

// Scheme returns client-go's and the core types plus this module's groups.
func Scheme() (*kruntime.Scheme, error) {
	return envtest.DefaultSchemeWith(bootstrapv1.AddToScheme, controlplanev1.AddToScheme)
}
