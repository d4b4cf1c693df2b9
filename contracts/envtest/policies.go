package envtest

import (
	"context"
	"fmt"
	"slices"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/admissionpolicy"
	"capstan.dev/contracts/config/admission"
)

// policyInstallTimeout bounds installing the admission policies and waiting until the API
// server applies them (it re-reads custom resources' schemas every five seconds).
const policyInstallTimeout = time.Minute

// CoreAdmissionPolicies decodes the core's admission policies embedded in
// capstan.dev/contracts/config/admission.
func CoreAdmissionPolicies() (admissionpolicy.Set, error) {
	return admissionpolicy.Read(admission.Files, ".")
}

// admissionDirs are opts.AdmissionPolicyDirs and the config/admission directories of the
// modules whose CRDs opts lists, each once.
func admissionDirs(opts Options) []string {
	dirs := slices.Clone(opts.AdmissionPolicyDirs)
	for _, crdDir := range opts.CRDDirectoryPaths {
		if d := moduleAdmissionDir(crdDir); d != "" && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// installAdmissionPolicies installs the core's policies and those in dirs, and waits until the
// API server applies them, so that no test races their loading.
func installAdmissionPolicies(c client.Client, dirs []string) error {
	set, err := CoreAdmissionPolicies()
	if err != nil {
		return err
	}
	for _, d := range dirs {
		s, err := admissionpolicy.ReadDir(d)
		if err != nil {
			return err
		}
		set = set.Merge(s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), policyInstallTimeout)
	defer cancel()
	if err := admissionpolicy.Install(ctx, c, set, admissionpolicy.WaitOptions{Timeout: policyInstallTimeout}); err != nil {
		return fmt.Errorf("installing admission policies: %w", err)
	}
	return nil
}
