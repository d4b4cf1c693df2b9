package install

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
)

func fakeServer(gitVersion string, admissionResources ...string) *fakediscovery.FakeDiscovery {
	list := &metav1.APIResourceList{GroupVersion: "admissionregistration.k8s.io/v1"}
	for _, r := range admissionResources {
		list.APIResources = append(list.APIResources, metav1.APIResource{Name: r})
	}
	return &fakediscovery.FakeDiscovery{
		Fake:               &clienttesting.Fake{Resources: []*metav1.APIResourceList{list}},
		FakedServerVersion: &version.Info{GitVersion: gitVersion},
	}
}

func TestCheckServer_RefusesKubernetesOlderThan136NamingBothVersions(t *testing.T) {
	for _, v := range []string{"v1.35.4", "v1.30.0", "v0.99.0"} {
		err := CheckServer(fakeServer(v, "mutatingadmissionpolicies"))
		require.Error(t, err, v)
		require.ErrorContains(t, err, "runs Kubernetes "+v+", and Capstan needs 1.36 or newer")
		require.ErrorContains(t, err, "MutatingAdmissionPolicies")
	}
}

func TestCheckServer_AcceptsKubernetes136AndNewer(t *testing.T) {
	for _, v := range []string{"v1.36.0", "v1.36.0-rc.1", "v1.37.2", "v1.40.1+k3s1", "v2.0.0"} {
		require.NoError(t, CheckServer(fakeServer(v, "validatingadmissionpolicies", "mutatingadmissionpolicies")), v)
	}
}

func TestCheckServer_RefusesAServerWithoutMutatingAdmissionPolicies(t *testing.T) {
	err := CheckServer(fakeServer("v1.37.2", "validatingadmissionpolicies"))
	require.ErrorContains(t, err, "does not serve mutatingadmissionpolicies in admissionregistration.k8s.io/v1")
}

func TestCheckServer_RefusesAnUnparseableVersion(t *testing.T) {
	require.ErrorContains(t, CheckServer(fakeServer("latest")), `reports Kubernetes version "latest", which cannot be parsed`)
}
