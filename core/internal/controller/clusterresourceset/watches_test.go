package clusterresourceset

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	"capstan.dev/contracts/envtest"
)

// TestClusterResourceSet_CachesOnlyNamedConfigMapsAndResourceSetSecrets runs the controller
// next to a foreign ConfigMap and a foreign Opaque Secret of the same namespace: its informers
// hold the ConfigMap a ClusterResourceSet names and the resource-set Secrets, never the foreign
// objects; a change of the named ConfigMap is applied again (Reconcile strategy), a named
// ConfigMap created later is applied when it appears, and a ConfigMap no ClusterResourceSet
// names any more is no longer watched.
func TestClusterResourceSet_CachesOnlyNamedConfigMapsAndResourceSetSecrets(t *testing.T) {
	var r *Reconciler
	startController(t, controllerOptions{reconciler: &r})
	f := newFixture(t)
	f.newCluster("c1", true)
	f.newConfigMap("foreign", map[string]string{"k": "not a manifest of any ClusterResourceSet"})
	f.newSecret("foreign", corev1.SecretTypeOpaque, map[string]string{"k": "not a manifest either"})
	named := f.newConfigMap("named", map[string]string{"m": f.workloadConfigMap("named", "v1")})
	f.newSecret("creds", addonsv1.ClusterResourceSetSecretType, map[string]string{"m": f.workloadConfigMap("creds", "v1")})
	crs := f.newCRS("addons", addonsv1.ClusterResourceSetStrategyReconcile, configMapRef("named"), configMapRef("later"), secretRef("creds"))
	f.waitWorkloadConfigMap("named", "v1")
	f.waitWorkloadConfigMap("creds", "v1")

	inNamespace := func(keys []string) []string {
		return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return !strings.HasPrefix(k, f.ns+"/") })
	}
	key := func(name string) string { return f.ns + "/" + name }
	require.Equal(t, []string{key("later"), key("named")}, inNamespace(r.configMapEvents.watched()))
	envtest.WaitFor(t, timeout, "the named ConfigMap in its watch's store", func() (bool, error) {
		if cached := inNamespace(r.configMapEvents.cached()); !slices.Equal(cached, []string{key("named")}) {
			return false, fmt.Errorf("cached: %v", cached)
		}
		return true, nil
	})
	secrets := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "SecretList"}}
	require.NoError(t, r.secretEvents.List(f.ctx, secrets, client.InNamespace(f.ns)))
	var secretNames []string
	for _, s := range secrets.Items {
		secretNames = append(secretNames, s.Name)
	}
	require.Equal(t, []string{"creds"}, secretNames, "only resource-set Secrets are informed on (not the foreign one, nor the kubeconfig)")

	envtest.Update(t, env.Client, named, func() { named.Data["m"] = f.workloadConfigMap("named", "v2") })
	f.waitWorkloadConfigMap("named", "v2")
	f.newConfigMap("later", map[string]string{"m": f.workloadConfigMap("later", "v1")})
	f.waitWorkloadConfigMap("later", "v1")
	f.waitApplied("c1", crs, configMapRef("named"), configMapRef("later"), secretRef("creds"))
	require.NotContains(t, r.configMapEvents.cached(), key("foreign"))

	envtest.Update(t, env.Client, crs, func() { crs.Spec.Resources = []addonsv1.ResourceRef{configMapRef("named")} })
	envtest.WaitFor(t, timeout, "the watch of the ConfigMap no longer named to stop", func() (bool, error) {
		if watched := inNamespace(r.configMapEvents.watched()); !slices.Equal(watched, []string{key("named")}) {
			return false, fmt.Errorf("watched: %v", watched)
		}
		return true, nil
	})
}
