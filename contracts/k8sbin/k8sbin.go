// Package k8sbin locates the Kubernetes and etcd binaries that `make k8s-binaries`
// builds from Go source (no release download site is reachable from the machines
// Capstan is built on). It owns the cache layout and the pinned version; it never
// builds anything itself.
package k8sbin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// KubernetesVersion is the Kubernetes release the binaries are built from. It must
// match hack/k8s/go.mod; a test in hack/tools keeps the two in step.
const KubernetesVersion = "v1.37.2"

// ErrMissing reports that a binary is not in the cache.
var ErrMissing = errors.New("kubernetes binary missing")

// CacheDir is the root of Capstan's build cache: $CAPSTAN_CACHE, else ~/.cache/capstan.
// It lives outside the repository so fresh clones on the same machine reuse it.
func CacheDir() string {
	if dir := os.Getenv("CAPSTAN_CACHE"); dir != "" {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		home = os.TempDir()
	}
	return filepath.Join(home, ".cache", "capstan")
}

// Dir is the directory holding the binaries: $KUBEBUILDER_ASSETS when set (the
// variable envtest users already know), else <cache>/k8s/<version>/bin.
func Dir() string {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir
	}
	return filepath.Join(CacheDir(), "k8s", KubernetesVersion, "bin")
}

// Path returns the path of the named binary (e.g. "kube-apiserver"), or an error
// wrapping ErrMissing that tells the reader which command provides it.
func Path(name string) (string, error) {
	p := filepath.Join(Dir(), name)
	info, err := os.Stat(p)
	switch {
	case err == nil && !info.IsDir() && info.Mode()&0o111 != 0:
		return p, nil
	case err == nil:
		return "", fmt.Errorf("%w: %s is not an executable file: run 'make k8s-binaries'", ErrMissing, p)
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("%w: %s not found: run 'make k8s-binaries' (builds Kubernetes %s from source into %s)",
			ErrMissing, name, KubernetesVersion, Dir())
	default:
		return "", fmt.Errorf("%w: %s: %v", ErrMissing, p, err)
	}
}

// Require returns the paths of all named binaries, or one error naming every
// missing binary.
func Require(names ...string) (map[string]string, error) {
	paths := make(map[string]string, len(names))
	var errs []error
	for _, n := range names {
		p, err := Path(n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		paths[n] = p
	}
	return paths, errors.Join(errs...)
}
