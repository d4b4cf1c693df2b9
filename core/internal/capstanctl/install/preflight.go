package install

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/discovery"
)

// MinKubernetesVersion is the oldest Kubernetes a management cluster may run: the providers
// default objects at admission with MutatingAdmissionPolicies of admissionregistration.k8s.io/v1,
// which Kubernetes serves from 1.36 on.
var MinKubernetesVersion = version.MajorMinor(1, 36)

// CheckServer refuses a management cluster that cannot serve what the providers need, naming
// the version it runs and the one it needs: a Kubernetes older than MinKubernetesVersion, or one
// that does not serve MutatingAdmissionPolicies (turned off with --runtime-config).
func CheckServer(d discovery.DiscoveryInterface) error {
	info, err := d.ServerVersion()
	if err != nil {
		return explain(err, "reading the management cluster's Kubernetes version")
	}
	v, err := version.ParseGeneric(info.GitVersion)
	if err != nil {
		return fmt.Errorf("the management cluster reports Kubernetes version %q, which cannot be parsed: %w", info.GitVersion, err)
	}
	if v.Major() < MinKubernetesVersion.Major() ||
		(v.Major() == MinKubernetesVersion.Major() && v.Minor() < MinKubernetesVersion.Minor()) {
		return fmt.Errorf("the management cluster runs Kubernetes %s, and Capstan needs %d.%d or newer: "+
			"the providers default objects with MutatingAdmissionPolicies (%s), served from Kubernetes %d.%d on; "+
			"upgrade the management cluster or use a newer one",
			info.GitVersion, MinKubernetesVersion.Major(), MinKubernetesVersion.Minor(),
			admissionregistrationv1.SchemeGroupVersion, MinKubernetesVersion.Major(), MinKubernetesVersion.Minor())
	}
	resources, err := d.ServerResourcesForGroupVersion(admissionregistrationv1.SchemeGroupVersion.String())
	if err != nil {
		return explain(err, "reading the management cluster's "+admissionregistrationv1.SchemeGroupVersion.String()+" resources")
	}
	for _, r := range resources.APIResources {
		if r.Name == "mutatingadmissionpolicies" {
			return nil
		}
	}
	return fmt.Errorf("the management cluster (Kubernetes %s) does not serve mutatingadmissionpolicies in %s, "+
		"which the providers' defaulting needs: enable it on the API server (--runtime-config)",
		info.GitVersion, admissionregistrationv1.SchemeGroupVersion)
}
