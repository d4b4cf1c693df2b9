package install

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/inventory"
)

// CheckUpgrade refuses installing label at version v into namespace when the inventory says a
// newer version is installed (capstanctl does not downgrade; neither does clusterctl), or that
// the provider lives in another namespace (clusterctl allows one instance of a provider).
func CheckUpgrade(installed []inventory.Entry, label, namespace, v string) error {
	want, err := clusterctl.ParseVersion(v)
	if err != nil {
		return err
	}
	for _, e := range inventory.Find(installed, label) {
		if e.Namespace != namespace {
			return fmt.Errorf("%s %s is installed in namespace %s, and this installation targets %s: clusterctl allows one instance of a provider; "+
				"delete it first (capstanctl delete --provider %s) or target %s", label, e.Version, e.Namespace, namespace, label, e.Namespace)
		}
		have, err := clusterctl.ParseVersion(e.Version)
		if err != nil {
			return fmt.Errorf("the inventory entry of %s: %w", label, err)
		}
		if want.LessThan(have) {
			return fmt.Errorf("%s %s is installed, and %s is older: capstanctl does not downgrade a provider; "+
				"request %s or newer, or delete the provider first (capstanctl delete --provider %s)", label, e.Version, v, e.Version, label)
		}
	}
	return nil
}

// CertManagerCRD is the CRD whose presence says cert-manager is installed, as clusterctl checks.
const CertManagerCRD = "certificates.cert-manager.io"

// CheckCertManager refuses components that need cert-manager (users names those objects) on a
// cluster without it. clusterctl would install cert-manager from the network; capstanctl
// cannot, so it says what to install.
func CheckCertManager(ctx context.Context, cl client.Client, provider string, users []string) error {
	if len(users) == 0 {
		return nil
	}
	crd := &unstructured.Unstructured{}
	crd.SetAPIVersion("apiextensions.k8s.io/v1")
	crd.SetKind("CustomResourceDefinition")
	err := cl.Get(ctx, client.ObjectKey{Name: CertManagerCRD}, crd)
	switch {
	case err == nil:
		return nil
	case !apierrors.IsNotFound(err):
		return explain(err, "reading CustomResourceDefinition "+CertManagerCRD)
	}
	return fmt.Errorf("%s needs cert-manager, and the management cluster has none (no CustomResourceDefinition %s): %s need it. "+
		"Capstan itself does not need cert-manager; clusterctl would install it from the network, which capstanctl does not reach: "+
		"install cert-manager (e.g. kubectl apply -f cert-manager.yaml of its release) and run init again",
		provider, CertManagerCRD, strings.Join(users, ", "))
}
