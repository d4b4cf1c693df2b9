package components

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"capstan.dev/contracts/admissionpolicy"
	"capstan.dev/contracts/config/admission"
)

// Test environments install the admission policies from the files (the core's embedded from
// contracts, the others from <provider>/config/admission); `capstanctl init` installs them from
// the components. Both must be the same policies, or a test would pass on defaulting that
// production does not do.
func TestAdmissionPolicies_TestEnvironmentsInstallWhatInitInstalls(t *testing.T) {
	prefixes := map[string]string{"core": "cluster-api-", "bootstrap-kubeadm": "bootstrap-kubeadm-", "infrastructure-docker": "infrastructure-docker-"}
	for _, p := range Providers {
		t.Run(p, func(t *testing.T) {
			var files admissionpolicy.Set
			var err error
			if p == "core" {
				files, err = admissionpolicy.Read(admission.Files, ".")
			} else {
				files, err = admissionpolicy.ReadDir(filepath.Join(repoRoot, p, "config", "admission"))
			}
			require.NoError(t, err)
			require.NotEmpty(t, files.Policies)

			data, err := Build(repoRoot, p)
			require.NoError(t, err)
			deployed, err := admissionpolicy.FromUnstructured(decodeAll(t, data))
			require.NoError(t, err)

			require.Len(t, deployed.Policies, len(files.Policies))
			require.Len(t, deployed.Bindings, len(files.Bindings))
			// kustomize keeps its resources' order and the directory is read by file name:
			// compare by name.
			sortByName(files.Policies)
			sortByName(deployed.Policies)
			sortByName(files.Bindings)
			sortByName(deployed.Bindings)
			for i, want := range files.Policies {
				got := deployed.Policies[i]
				require.Equal(t, prefixes[p]+want.Name, got.Name)
				require.Equal(t, want.Spec, got.Spec, "policy %s", want.Name)
			}
			for i, want := range files.Bindings {
				got := deployed.Bindings[i]
				require.Equal(t, prefixes[p]+want.Name, got.Name)
				require.Equal(t, prefixes[p]+want.Spec.PolicyName, got.Spec.PolicyName, "binding %s", want.Name)
				require.True(t, strings.HasPrefix(got.Spec.PolicyName, prefixes[p]))
			}
		})
	}
}

func sortByName[T interface{ GetName() string }](objs []T) {
	slices.SortFunc(objs, func(a, b T) int { return strings.Compare(a.GetName(), b.GetName()) })
}

func decodeAll(t *testing.T, data []byte) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return out
		} else {
			require.NoError(t, err)
		}
		out = append(out, u)
	}
}
