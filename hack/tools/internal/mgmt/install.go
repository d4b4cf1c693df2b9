package mgmt

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crenvtest "sigs.k8s.io/controller-runtime/pkg/envtest"

	"capstan.dev/contracts/admissionpolicy"
	"capstan.dev/contracts/envtest"
)

// installPolicies applies the admission policies and waits until they are in effect.
func installPolicies(ctx context.Context, cfg *rest.Config, set admissionpolicy.Set, logf func(string, ...any)) error {
	if set.Empty() {
		return nil
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	if err := admissionpolicy.Install(ctx, c, set, admissionpolicy.WaitOptions{}); err != nil {
		return fmt.Errorf("installing admission policies: %w", err)
	}
	logf("Installed %d mutating and %d validating admission policies", len(set.Policies), len(set.ValidatingPolicies))
	return nil
}

// installCRDs creates or updates the core CRDs and those in dirs, and waits until
// every one is Established.
func installCRDs(ctx context.Context, cfg *rest.Config, dirs []string, logf func(string, ...any)) error {
	crds, err := envtest.CoreCRDs()
	if err != nil {
		return err
	}
	var present []string
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			present = append(present, d)
		}
	}
	installed, err := crenvtest.InstallCRDs(cfg, crenvtest.CRDInstallOptions{CRDs: crds, Paths: present})
	if err != nil {
		return fmt.Errorf("installing CRDs: %w", err)
	}
	logf("Installed %d CRDs", len(installed))
	return nil
}

func ensureNamespaces(ctx context.Context, cfg *rest.Config, names []string) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, n := range names {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}
		if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", n, err)
		}
	}
	return nil
}
