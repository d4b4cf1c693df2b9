package clusterresourceset

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
)

// TestClusterResourceSet_AppliesToMatchingClusters: a ConfigMap of two documents and a
// resource-set Secret are applied to the matching Cluster only, under the ClusterResourceSet's
// field manager; the binding records both with their hashes; the resources get the
// ClusterResourceSet as owner; ResourcesApplied is True.
func TestClusterResourceSet_AppliesToMatchingClusters(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	f.newCluster("c1", true)
	f.newCluster("other", true, func(c *clusterv1.Cluster) { c.Labels = map[string]string{"cni": "none"} })
	nsName := f.ns + "-addon"
	cm := f.newConfigMap("cni", map[string]string{
		// The ConfigMap comes before its Namespace in the document: the Namespace is applied first.
		"cni.yaml": fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: in-new-ns\n  namespace: %s\ndata:\n  value: x\n---\n"+
			"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", nsName, nsName),
		"extra.yaml": f.workloadConfigMap("from-configmap", "1"),
	})
	secret := f.newSecret("creds", addonsv1.ClusterResourceSetSecretType, map[string]string{"s.yaml": f.workloadConfigMap("from-secret", "1")})
	crs := f.newCRS("cni", addonsv1.ClusterResourceSetStrategyApplyOnce, configMapRef("cni"), secretRef("creds"))

	applied := f.waitWorkloadConfigMap("from-configmap", "1")
	f.waitWorkloadConfigMap("from-secret", "1")
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKey{Namespace: nsName, Name: "in-new-ns"}, &corev1.ConfigMap{}))
	require.True(t, slices.ContainsFunc(applied.ManagedFields, func(m metav1.ManagedFieldsEntry) bool {
		return m.Manager == "clusterresourceset/cni"
	}), "created by the ClusterResourceSet's field manager: %+v", applied.ManagedFields)

	entry := f.waitApplied("c1", crs, configMapRef("cni"), secretRef("creds"))
	for _, rb := range entry.Resources {
		require.True(t, strings.HasPrefix(rb.Hash, "sha256:"), "hash of %s: %q", rb.Name, rb.Hash)
		require.False(t, rb.LastAppliedTime.IsZero())
	}
	b, err := f.getBinding("c1")
	require.NoError(t, err)
	require.Equal(t, "c1", b.Spec.ClusterName)
	require.Len(t, b.OwnerReferences, 1)
	require.Equal(t, "ClusterResourceSet", b.OwnerReferences[0].Kind)
	require.Equal(t, crs.Name, b.OwnerReferences[0].Name)
	_, err = f.getBinding("other")
	require.True(t, apierrors.IsNotFound(err), "no binding for a Cluster the selector does not match: %v", err)

	f.waitCondition(crs, metav1.ConditionTrue, addonsv1.ClusterResourceSetResourcesAppliedReason)
	for _, obj := range []client.Object{cm, secret} {
		require.NoError(t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(obj), obj))
		require.True(t, slices.ContainsFunc(obj.GetOwnerReferences(), func(r metav1.OwnerReference) bool {
			return r.Kind == "ClusterResourceSet" && r.Name == crs.Name
		}), "%T %s is owned by the ClusterResourceSet: %+v", obj, obj.GetName(), obj.GetOwnerReferences())
	}
}

// TestClusterResourceSet_ApplyOnceIgnoresChangesReconcileReappliesThem changes the content of
// the resource of two ClusterResourceSets: the Reconcile one applies it again, with server-side
// apply, and records the new hash; the ApplyOnce one, reconciled after the change, leaves the
// object as it was.
func TestClusterResourceSet_ApplyOnceIgnoresChangesReconcileReappliesThem(t *testing.T) {
	f := newFixture(t)
	once := f.newCRS("once", addonsv1.ClusterResourceSetStrategyApplyOnce, configMapRef("once"))
	calls := &envtest.CallCounter{Type: &addonsv1.ClusterResourceSet{}, Key: client.ObjectKeyFromObject(once)}
	startController(t, controllerOptions{calls: []*envtest.CallCounter{calls}})
	f.newCluster("c1", true)
	onceCM := f.newConfigMap("once", map[string]string{"m": f.workloadConfigMap("applied-once", "v1")})
	reconcileCM := f.newConfigMap("reconcile", map[string]string{"m": f.workloadConfigMap("applied-reconcile", "v1")})
	rec := f.newCRS("reconcile", addonsv1.ClusterResourceSetStrategyReconcile, configMapRef("reconcile"))
	f.waitWorkloadConfigMap("applied-once", "v1")
	f.waitWorkloadConfigMap("applied-reconcile", "v1")
	before := f.waitApplied("c1", rec, configMapRef("reconcile")).Resources[0].Hash
	f.waitApplied("c1", once, configMapRef("once"))

	envtest.Update(t, env.Client, reconcileCM, func() { reconcileCM.Data["m"] = f.workloadConfigMap("applied-reconcile", "v2") })
	applied := f.waitWorkloadConfigMap("applied-reconcile", "v2")
	require.True(t, slices.ContainsFunc(applied.ManagedFields, func(m metav1.ManagedFieldsEntry) bool {
		return m.Manager == "clusterresourceset/reconcile" && m.Operation == metav1.ManagedFieldsOperationApply
	}), "applied with server-side apply by the ClusterResourceSet's field manager: %+v", applied.ManagedFields)
	envtest.WaitFor(t, timeout, "the new hash in the binding", func() (bool, error) {
		e := f.waitApplied("c1", rec, configMapRef("reconcile"))
		return e.Resources[0].Hash != before, nil
	})

	envtest.Update(t, env.Client, onceCM, func() { onceCM.Data["m"] = f.workloadConfigMap("applied-once", "v2") })
	f.reconcileAgain(once, calls)
	f.waitWorkloadConfigMap("applied-once", "v1")
	f.waitCondition(once, metav1.ConditionTrue, addonsv1.ClusterResourceSetResourcesAppliedReason)
}

// TestClusterResourceSet_MissingResourceIsNamedAndAppliedWhenItAppears: a ConfigMap that does
// not exist yet makes ResourcesApplied False ResourceNotFound naming it, while the Secret that
// exists is applied; creating the ConfigMap applies it (through the watch, well within the resync).
func TestClusterResourceSet_MissingResourceIsNamedAndAppliedWhenItAppears(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	f.newCluster("c1", true)
	f.newSecret("present", addonsv1.ClusterResourceSetSecretType, map[string]string{"m": f.workloadConfigMap("from-present", "1")})
	crs := f.newCRS("addons", addonsv1.ClusterResourceSetStrategyApplyOnce, configMapRef("later"), secretRef("present"))

	c := f.waitCondition(crs, metav1.ConditionFalse, addonsv1.ClusterResourceSetResourceNotFoundReason)
	require.Contains(t, c.Message, "ConfigMap later not found in namespace "+f.ns+": create it")
	f.waitWorkloadConfigMap("from-present", "1")

	f.newConfigMap("later", map[string]string{"m": f.workloadConfigMap("from-later", "1")})
	f.waitWorkloadConfigMap("from-later", "1")
	f.waitApplied("c1", crs, configMapRef("later"), secretRef("present"))
	f.waitCondition(crs, metav1.ConditionTrue, addonsv1.ClusterResourceSetResourcesAppliedReason)
}

// TestClusterResourceSet_RefusesSecretsOfAnotherTypeAndInvalidManifests: an Opaque Secret is
// never applied (WrongSecretType, naming it), and a ConfigMap with a document without a name
// is reported with its key and document (NotApplied); a good resource next to them is applied.
func TestClusterResourceSet_RefusesSecretsOfAnotherTypeAndInvalidManifests(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	f.newCluster("c1", true)
	f.newSecret("opaque", corev1.SecretTypeOpaque, map[string]string{"m": f.workloadConfigMap("from-opaque", "1")})
	f.newConfigMap("broken", map[string]string{"bad.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: x\n"})
	f.newConfigMap("good", map[string]string{"m": f.workloadConfigMap("from-good", "1")})
	crs := f.newCRS("addons", addonsv1.ClusterResourceSetStrategyApplyOnce, secretRef("opaque"), configMapRef("broken"), configMapRef("good"))

	c := f.waitCondition(crs, metav1.ConditionFalse, addonsv1.ClusterResourceSetResourcesAppliedWrongSecretTypeReason)
	require.Contains(t, c.Message, "Secret opaque has type Opaque: only Secrets of type addons.cluster.x-k8s.io/resource-set are applied")
	require.Contains(t, c.Message, `ConfigMap broken: key "bad.yaml": document 1: v1 ConfigMap has neither metadata.name nor metadata.generateName`)
	f.waitWorkloadConfigMap("from-good", "1")
	err := env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: "wl-from-opaque"}, &corev1.ConfigMap{})
	require.True(t, apierrors.IsNotFound(err), "the Opaque Secret's content was not applied: %v", err)
}

// TestClusterResourceSet_WaitsForControlPlaneAndHonoursPause: nothing is applied to a Cluster
// whose control plane is not initialized (NotApplied, saying so) nor to a paused one (no
// binding); each gets the resources once that changes.
func TestClusterResourceSet_WaitsForControlPlaneAndHonoursPause(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	pending := f.newCluster("pending", false)
	paused := f.newCluster("paused", true, func(c *clusterv1.Cluster) { c.Spec.Paused = new(true) })
	f.newConfigMap("cni", map[string]string{"m": f.workloadConfigMap("cni", "1")})
	crs := f.newCRS("cni", addonsv1.ClusterResourceSetStrategyApplyOnce, configMapRef("cni"))

	c := f.waitCondition(crs, metav1.ConditionFalse, addonsv1.ClusterResourceSetResourcesNotAppliedReason)
	require.Equal(t, "Waiting for the control plane of Cluster pending to be initialized", c.Message)
	for _, name := range []string{"pending", "paused"} {
		_, err := f.getBinding(name)
		require.True(t, apierrors.IsNotFound(err), "no binding for %s yet: %v", name, err)
	}

	envtest.UpdateStatus(t, env.Client, pending, func() { pending.Status.Initialization.ControlPlaneInitialized = new(true) })
	f.waitApplied("pending", crs, configMapRef("cni"))
	c = f.waitCondition(crs, metav1.ConditionTrue, addonsv1.ClusterResourceSetResourcesAppliedReason)
	require.Equal(t, "Not applied to paused Clusters (applied once they are resumed): paused", c.Message)
	_, err := f.getBinding("paused")
	require.True(t, apierrors.IsNotFound(err), "still no binding for the paused Cluster: %v", err)

	envtest.Update(t, env.Client, paused, func() { paused.Spec.Paused = new(false) })
	f.waitApplied("paused", crs, configMapRef("cni"))
	c = f.waitCondition(crs, metav1.ConditionTrue, addonsv1.ClusterResourceSetResourcesAppliedReason)
	require.Empty(t, c.Message)
}

// TestClusterResourceSet_PausedByAnnotationDoesNothingButReportIt: with the paused annotation
// (as `capstanctl move` sets it) the ClusterResourceSet reports Paused and applies nothing;
// once the annotation is removed it applies.
func TestClusterResourceSet_PausedByAnnotationDoesNothingButReportIt(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	f.newCluster("c1", true)
	f.newConfigMap("cni", map[string]string{"m": f.workloadConfigMap("cni", "1")})
	crs := &addonsv1.ClusterResourceSet{
		ObjectMeta: metav1.ObjectMeta{Name: "paused", Namespace: f.ns, Annotations: map[string]string{clusterv1.PausedAnnotation: ""}},
		Spec: addonsv1.ClusterResourceSetSpec{
			ClusterSelector: clusterv1.LabelSelector{MatchLabels: map[string]string{"cni": "test"}},
			Resources:       []addonsv1.ResourceRef{configMapRef("cni")},
		},
	}
	require.NoError(t, env.Client.Create(f.ctx, crs))
	envtest.WaitFor(t, timeout, "Paused=True", func() (bool, error) {
		err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(crs), crs)
		return err == nil && conditions.IsTrue(crs, clusterv1.PausedCondition), err
	})
	require.Empty(t, crs.Finalizers, "nothing but the Paused condition is written")
	require.Nil(t, conditions.Get(crs, addonsv1.ClusterResourceSetResourcesAppliedCondition))
	_, err := f.getBinding("c1")
	require.True(t, apierrors.IsNotFound(err), "nothing applied while paused: %v", err)

	envtest.Update(t, env.Client, crs, func() { delete(crs.Annotations, clusterv1.PausedAnnotation) })
	f.waitApplied("c1", crs, configMapRef("cni"))
	f.waitCondition(crs, metav1.ConditionTrue, addonsv1.ClusterResourceSetResourcesAppliedReason)
}

// TestClusterResourceSet_ApplyOnceNeverOverwritesWhatIsInTheWorkloadCluster: each resource holds
// an object that cannot be created yet (its namespace is missing), so ApplyOnce fails part-way
// and retries. A user changes an object the first attempt created: the retry that succeeds once
// the namespace exists leaves the change alone (it creates, and counts AlreadyExists as
// applied). An object with generateName is created once however often the resource is retried.
func TestClusterResourceSet_ApplyOnceNeverOverwritesWhatIsInTheWorkloadCluster(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	f.newCluster("c1", true)
	later := f.ns + "-later"
	inLater := func(name string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: %s\n", name, later)
	}
	// The object that fails comes first: an attempt that gets past it (once the namespace
	// exists) puts "kept" after the user changed it.
	f.newConfigMap("named", map[string]string{"m": inLater("named") + "---\n" + f.workloadConfigMap("kept", "1")})
	f.newConfigMap("generated", map[string]string{"m": fmt.Sprintf(
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: wl-gen-\n  namespace: %s\ndata:\n  value: x\n---\n%s", f.ns, inLater("generated"))})
	crs := f.newCRS("once", addonsv1.ClusterResourceSetStrategyApplyOnce, configMapRef("named"), configMapRef("generated"))

	kept := f.waitWorkloadConfigMap("kept", "1")
	envtest.WaitFor(t, timeout, "the apply to fail on the missing namespace", func() (bool, error) {
		cur := &addonsv1.ClusterResourceSet{}
		if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(crs), cur); err != nil {
			return false, err
		}
		c := conditions.Get(cur, addonsv1.ClusterResourceSetResourcesAppliedCondition)
		return c != nil && strings.Contains(c.Message, `namespaces "`+later+`" not found`), nil
	})
	envtest.Update(t, env.Client, kept, func() { kept.Data["value"] = "changed by the user" })

	require.NoError(t, env.Client.Create(f.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: later}}))
	t.Cleanup(func() { _ = env.Client.Delete(f.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: later}}) })
	f.waitApplied("c1", crs, configMapRef("named"))
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKey{Namespace: later, Name: "named"}, &corev1.ConfigMap{}))
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(kept), kept))
	require.Equal(t, "changed by the user", kept.Data["value"], "ApplyOnce overwrote what the user changed")

	f.waitApplied("c1", crs, configMapRef("generated"))
	f.waitCondition(crs, metav1.ConditionTrue, addonsv1.ClusterResourceSetResourcesAppliedReason)
	list := &corev1.ConfigMapList{}
	require.NoError(t, env.Client.List(f.ctx, list, client.InNamespace(f.ns)))
	var generated []string
	for _, cm := range list.Items {
		if strings.HasPrefix(cm.Name, "wl-gen-") {
			generated = append(generated, cm.Name)
		}
	}
	require.Len(t, generated, 1, "one object however often the resource was tried: %v", generated)
}
