package contract_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"capstan.dev/contracts/contract"
)

func TestCalculateCRDName_PluralizesLikeControllerGen(t *testing.T) {
	cases := []struct{ group, kind, want string }{
		{"infrastructure.cluster.x-k8s.io", "DockerMachine", "dockermachines.infrastructure.cluster.x-k8s.io"},
		{"infrastructure.cluster.x-k8s.io", "DevMachinePool", "devmachinepools.infrastructure.cluster.x-k8s.io"},
		{"bootstrap.cluster.x-k8s.io", "KubeadmConfig", "kubeadmconfigs.bootstrap.cluster.x-k8s.io"},
		{"controlplane.cluster.x-k8s.io", "KubeadmControlPlane", "kubeadmcontrolplanes.controlplane.cluster.x-k8s.io"},
		{"cluster.x-k8s.io", "ClusterClass", "clusterclasses.cluster.x-k8s.io"},
		{"cluster.x-k8s.io", "MachineHealthCheck", "machinehealthchecks.cluster.x-k8s.io"},
		{"infrastructure.cluster.x-k8s.io", "AWSCluster", "awsclusters.infrastructure.cluster.x-k8s.io"},
		{"example.com", "FooPolicy", "foopolicies.example.com"},
		{"example.com", "FooProxy", "fooproxies.example.com"},
		{"example.com", "FooStatus", "foostatuses.example.com"},
		// Kinds where lowercasing before pluralizing (upstream Cluster API's order)
		// would give a name controller-gen never generates: controller-gen
		// (controller-tools pkg/crd/spec.go) pluralizes the CamelCase kind first.
		{"example.com", "FooAlias", "fooaliases.example.com"},
		{"example.com", "FooDNS", "foodnses.example.com"},
		{"example.com", "FooOx", "foooxen.example.com"},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, contract.CalculateCRDName(tc.group, tc.kind), tc.kind)
	}
}

func TestVersionFromLabels_PicksNewestContractThenNewestCRDVersion(t *testing.T) {
	cases := []struct {
		name   string
		labels map[string]string
		want   contract.Version
	}{
		{"v1beta2 label", map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta2"},
			contract.Version{Contract: contract.V1Beta2, APIVersion: "v1beta2"}},
		{"v1beta1 label only", map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1"},
			contract.Version{Contract: contract.V1Beta1, APIVersion: "v1beta1"}},
		{"both labels: the newer contract wins", map[string]string{
			"cluster.x-k8s.io/v1beta1": "v1alpha4_v1beta1", "cluster.x-k8s.io/v1beta2": "v1beta2"},
			contract.Version{Contract: contract.V1Beta2, APIVersion: "v1beta2"}},
		{"multi-version value", map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta1_v1beta2"},
			contract.Version{Contract: contract.V1Beta2, APIVersion: "v1beta2"}},
		{"multi-version value in any order", map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta2_v1beta1"},
			contract.Version{Contract: contract.V1Beta2, APIVersion: "v1beta2"}},
		{"GA beats beta", map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta2_v1_v1beta1"},
			contract.Version{Contract: contract.V1Beta2, APIVersion: "v1"}},
		{"GA beats a higher-major alpha", map[string]string{"cluster.x-k8s.io/v1beta2": "v2alpha1_v1"},
			contract.Version{Contract: contract.V1Beta2, APIVersion: "v1"}},
		{"beta10 beats beta9, not lexically", map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta10_v1beta9"},
			contract.Version{Contract: contract.V1Beta2, APIVersion: "v1beta10"}},
		{"other labels and older contracts ignored", map[string]string{
			"cluster.x-k8s.io/v1alpha4": "v1alpha4", "app": "x", "cluster.x-k8s.io/v1beta1": "v1beta1"},
			contract.Version{Contract: contract.V1Beta1, APIVersion: "v1beta1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := contract.VersionFromLabels("foos.example.com", tc.labels)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestVersionFromLabels_NoCompatibleLabelSaysTheProviderDeclaresNoContract(t *testing.T) {
	for name, labels := range map[string]map[string]string{
		"no labels":           nil,
		"unrelated labels":    {"app": "x"},
		"only older contract": {"cluster.x-k8s.io/v1alpha4": "v1alpha4"},
	} {
		_, err := contract.VersionFromLabels("foos.example.com", labels)
		require.ErrorIs(t, err, contract.ErrNoContractLabel, name)
		require.EqualError(t, err, "CRD foos.example.com has no cluster.x-k8s.io/v1beta2 or cluster.x-k8s.io/v1beta1 label: "+
			"the provider does not declare a supported contract", name)
	}
}

func TestVersionFromLabels_MalformedValueIsAnErrorNotAFallback(t *testing.T) {
	cases := map[string]string{
		"":                 "the value is empty",
		"v1beta1__v1beta2": "empty version between '_' separators",
		"v1beta2_":         "empty version between '_' separators",
		"V1Beta2":          `version "V1Beta2" is not a valid CRD version name`,
		"v1beta2 v1beta1":  `version "v1beta2 v1beta1" is not a valid CRD version name`,
		"v1beta2,v1":       `version "v1beta2,v1" is not a valid CRD version name`,
	}
	for value, reason := range cases {
		// A valid v1beta1 label is present too: a broken v1beta2 declaration must be
		// reported, not silently downgraded.
		_, err := contract.VersionFromLabels("foos.example.com",
			map[string]string{"cluster.x-k8s.io/v1beta2": value, "cluster.x-k8s.io/v1beta1": "v1beta1"})
		require.ErrorIs(t, err, contract.ErrMalformedContractLabel, value)
		require.ErrorContains(t, err, `CRD foos.example.com has label cluster.x-k8s.io/v1beta2="`+value+`": `+reason, value)
	}
}

func TestVersion_GroupVersionKindUsesTheDiscoveredAPIVersion(t *testing.T) {
	v := contract.Version{Contract: contract.V1Beta1, APIVersion: "v1beta1"}
	gk := schema.GroupKind{Group: "infrastructure.cluster.x-k8s.io", Kind: "DockerMachine"}
	require.Equal(t, schema.GroupVersionKind{Group: gk.Group, Version: "v1beta1", Kind: gk.Kind}, v.GroupVersionKind(gk))
}

func TestCompatibleContracts_NewestFirst(t *testing.T) {
	require.Equal(t, []contract.ContractVersion{contract.V1Beta2, contract.V1Beta1}, contract.CompatibleContracts())
	require.Equal(t, "cluster.x-k8s.io/v1beta2", contract.V1Beta2.Label())
}
