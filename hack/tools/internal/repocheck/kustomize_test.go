package repocheck

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"capstan.dev/contracts/k8sbin"
)

// Each provider's config/default must build on its own (kubectl's built-in
// kustomize) into its own namespace, with the manager image tilt-provider.json names.
func TestKustomize_EachProviderBuildsAloneIntoItsNamespace(t *testing.T) {
	kubectl, err := k8sbin.Path("kubectl")
	if err != nil {
		t.Fatalf("kustomize builds need kubectl: %v", err)
	}
	ps, err := LoadTiltProviders(repoRoot)
	require.NoError(t, err)
	wantNS := map[string]string{
		"core": "capstan-system", "bootstrap-kubeadm": "capstan-kubeadm-bootstrap-system",
		"infrastructure-docker": "capstan-docker-system",
	}
	for _, p := range ps {
		t.Run(p.Config.Context, func(t *testing.T) {
			out, err := exec.Command(kubectl, "kustomize", filepath.Join(repoRoot, p.Config.Context, "config", "default")).CombinedOutput()
			require.NoError(t, err, "%s", out)
			kinds := map[string]int{}
			dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
			for {
				u := &unstructured.Unstructured{}
				if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
					break
				} else {
					require.NoError(t, err)
				}
				kinds[u.GetKind()]++
				switch u.GetKind() {
				case "Namespace":
					require.Equal(t, wantNS[p.Config.Context], u.GetName())
				case "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding":
				case "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
					// Cluster-scoped, though kustomize does not know it: config/default sets
					// the namespace below these (config/namespaced) so they get none.
					require.Empty(t, u.GetNamespace(), "%s %s", u.GetKind(), u.GetName())
				default:
					require.Equal(t, wantNS[p.Config.Context], u.GetNamespace(), "%s %s", u.GetKind(), u.GetName())
				}
				if u.GetKind() == "Deployment" {
					containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
					require.Len(t, containers, 1)
					image, _, _ := unstructured.NestedString(containers[0].(map[string]any), "image")
					require.Equal(t, p.Config.Image+":dev", image)
				}
			}
			require.Equal(t, kinds["MutatingAdmissionPolicy"], kinds["MutatingAdmissionPolicyBinding"], "every admission policy has its binding")
			require.Positive(t, kinds["MutatingAdmissionPolicy"], "every provider defaults its kinds with admission policies")
			require.Equal(t, kinds["ValidatingAdmissionPolicy"], kinds["ValidatingAdmissionPolicyBinding"], "every admission policy has its binding")
			require.Positive(t, kinds["ValidatingAdmissionPolicy"], "every provider applies its v1beta2 rules to v1beta1 writes")
			require.Equal(t, 1, kinds["Deployment"])
			require.Equal(t, 1, kinds["Namespace"])
			if p.Config.Context == "core" {
				require.Equal(t, 13, kinds["CustomResourceDefinition"], "core deploys the eight core CRDs (with MachineDrainRule and ClusterClass), the two addons CRDs, the two ipam CRDs and ExtensionConfig")
			}
		})
	}
}
