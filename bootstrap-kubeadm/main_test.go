package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	bootstrapv1beta1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta1"
	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1beta1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta1"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

var env *envtest.Environment

// TestMain starts one API server with the core CRDs, this module's (v1beta1 unserved, as
// shipped) and contracts' generic providers (the KubeadmControlPlane's infrastructure template),
// and a scheme holding both versions of this module's kinds, as the manager's does.
func TestMain(m *testing.M) {
	scheme, err := envtest.DefaultSchemeWith(bootstrapv1.AddToScheme, controlplanev1.AddToScheme,
		bootstrapv1beta1.AddToScheme, controlplanev1beta1.AddToScheme)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(envtest.Run(m, envtest.Options{
		CRDDirectoryPaths: []string{filepath.Join("config", "crd", "bases")},
		CRDs:              crds.All(),
		Scheme:            scheme,
	}, &env))
}
