// Package apitest starts the real kube-apiserver the Docker provider's API and controller tests
// run against: the core CRDs and this module's CRDs installed, a scheme holding this module's
// group. It owns nothing else; Docker objects are the tests' own business.
package apitest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	kruntime "k8s.io/apimachinery/pkg/runtime"

	"capstan.dev/contracts/envtest"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
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

// Scheme returns client-go's and the core types plus this module's group.
func Scheme() (*kruntime.Scheme, error) {
	scheme, err := envtest.DefaultScheme()
	if err != nil {
		return nil, err
	}
	if err := infrav1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building scheme: %w", err)
	}
	return scheme, nil
}

// crdDir is this module's config/crd/bases, found from this file so that any package's test can
// use it.
func crdDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "config", "crd", "bases")
}
