package envtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// DefaultSchemeWith is DefaultScheme plus a provider's own API groups.
func DefaultSchemeWith(addToScheme ...func(*runtime.Scheme) error) (*runtime.Scheme, error) {
	scheme, err := DefaultScheme()
	if err != nil {
		return nil, err
	}
	for _, add := range addToScheme {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("building scheme: %w", err)
		}
	}
	return scheme, nil
}

// RunWithModuleCRDs is TestMain's body for a provider package: the API server gets
// the core CRDs plus those in crdDir (the provider's config/crd/bases) with the admission
// policies of both (see Options.CRDDirectoryPaths), and the client's scheme the provider's
// groups.
func RunWithModuleCRDs(m *testing.M, env **Environment, crdDir string, addToScheme ...func(*runtime.Scheme) error) int {
	scheme, err := DefaultSchemeWith(addToScheme...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return Run(m, Options{CRDDirectoryPaths: []string{crdDir}, Scheme: scheme}, env)
}

// RunWithOwnModuleCRDs is RunWithModuleCRDs with the config/crd/bases of the module whose
// test is running (ModuleCRDDir).
func RunWithOwnModuleCRDs(m *testing.M, env **Environment, addToScheme ...func(*runtime.Scheme) error) int {
	dir, err := ModuleCRDDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return RunWithModuleCRDs(m, env, dir, addToScheme...)
}

// moduleAdmissionDir returns the config/admission directory of the module whose
// config/crd/bases is crdDir, or "" when it has none: a provider's defaulting policies live
// beside its CRDs.
func moduleAdmissionDir(crdDir string) string {
	if filepath.Base(filepath.Clean(crdDir)) != "bases" {
		return ""
	}
	dir := filepath.Join(crdDir, "..", "..", "admission")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// ModuleCRDDir is the config/crd/bases directory of the module whose test is running. go test
// runs a test binary in its package's directory, so the nearest go.mod above the working
// directory marks the module. (Not runtime.Caller: tests are built -trimpath, as every binary
// is, and then carry no source paths.)
func ModuleCRDDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "config", "crd", "bases"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory of the test")
		}
		dir = parent
	}
}
