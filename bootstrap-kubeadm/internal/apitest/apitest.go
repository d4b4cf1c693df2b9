// Package apitest starts the real kube-apiserver the bootstrap and control plane
// API packages check their admission rules against: the core CRDs and this
// module's CRDs installed, a scheme holding both of this module's groups.
package apitest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	kruntime "k8s.io/apimachinery/pkg/runtime"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/contracts/envtest"
)

// Run is TestMain's body.
func Run(m *testing.M, env **envtest.Environment) int {
	scheme, err := Scheme()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return envtest.Run(m, envtest.Options{CRDDirectoryPaths: []string{crdDir()}, Scheme: scheme}, env)
}

// Scheme returns client-go's and the core types plus both groups of this module.
func Scheme() (*kruntime.Scheme, error) {
	scheme, err := envtest.DefaultScheme()
	if err != nil {
		return nil, err
	}
	for _, add := range []func(*kruntime.Scheme) error{bootstrapv1.AddToScheme, controlplanev1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("building scheme: %w", err)
		}
	}
	return scheme, nil
}

// crdDir is this module's config/crd/bases, found from this file so that any
// package's test can use it.
func crdDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "config", "crd", "bases")
}
