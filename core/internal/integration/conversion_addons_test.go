package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1beta1 "capstan.dev/contracts/api/addons/v1beta1"
	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// TestConversion_V1Beta1ClientReadsAndUpdatesDrainRulesAndResourceSets writes a
// MachineDrainRule, a ClusterResourceSet and a ClusterResourceSetBinding through a client built
// on the v1beta1 types, checks what v1beta2 stores, updates each through v1beta1 and reads the
// change at v1beta2 and the whole object back at v1beta1; the ClusterResourceSet's v1beta2
// admission rules (default strategy, immutable selector) hold at v1beta1 too.
func TestConversion_V1Beta1ClientReadsAndUpdatesDrainRulesAndResourceSets(t *testing.T) {
	ctx := context.Background()
	stop, _ := startCoreWithWebhook(t, time.Hour)
	defer stop()
	ns := env.CreateNamespace(t, "conversion-addons")
	old, err := client.New(env.Config, client.Options{Scheme: conversionScheme(t)})
	require.NoError(t, err)

	rule := &clusterv1beta1.MachineDrainRule{ObjectMeta: metav1.ObjectMeta{Name: "monitoring", Namespace: ns}, Spec: clusterv1beta1.MachineDrainRuleSpec{
		Drain:    clusterv1beta1.MachineDrainRuleDrainConfig{Behavior: clusterv1.MachineDrainRuleDrainBehaviorSkip},
		Machines: []clusterv1beta1.MachineDrainRuleMachineSelector{{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "worker"}}}},
		Pods: []clusterv1beta1.MachineDrainRulePodSelector{{NamespaceSelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{"kubernetes.io/metadata.name": "monitoring"}}}},
	}}
	require.NoError(t, old.Create(ctx, rule))
	hubRule := &clusterv1.MachineDrainRule{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(rule), hubRule))
	require.Equal(t, clusterv1.MachineDrainRuleDrainBehaviorSkip, hubRule.Spec.Drain.Behavior)
	require.Equal(t, map[string]string{"role": "worker"}, hubRule.Spec.Machines[0].Selector.MatchLabels)
	rule.Spec.Drain = clusterv1beta1.MachineDrainRuleDrainConfig{Behavior: clusterv1.MachineDrainRuleDrainBehaviorDrain, Order: ptr.To[int32](5)}
	require.NoError(t, old.Update(ctx, rule))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(rule), hubRule))
	require.Equal(t, ptr.To[int32](5), hubRule.Spec.Drain.Order)
	gotRule := &clusterv1beta1.MachineDrainRule{}
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(rule), gotRule))
	require.Equal(t, rule.Spec, gotRule.Spec)

	crs := &addonsv1beta1.ClusterResourceSet{ObjectMeta: metav1.ObjectMeta{Name: "cni", Namespace: ns}, Spec: addonsv1beta1.ClusterResourceSetSpec{
		ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{"cni": "flannel"}},
		Resources:       []addonsv1beta1.ResourceRef{{Name: "flannel", Kind: "ConfigMap"}},
	}}
	require.NoError(t, old.Create(ctx, crs))
	require.Equal(t, "ApplyOnce", crs.Spec.Strategy, "defaulted at v1beta1 as upstream's webhook did")
	crs.Spec.Resources = append(crs.Spec.Resources, addonsv1beta1.ResourceRef{Name: "flannel-config", Kind: "Secret"})
	require.NoError(t, old.Update(ctx, crs))
	hubCRS := &addonsv1.ClusterResourceSet{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(crs), hubCRS))
	require.Equal(t, []addonsv1.ResourceRef{{Name: "flannel", Kind: "ConfigMap"}, {Name: "flannel-config", Kind: "Secret"}}, hubCRS.Spec.Resources)
	require.Equal(t, map[string]string{"cni": "flannel"}, hubCRS.Spec.ClusterSelector.MatchLabels)
	crs.Spec.ClusterSelector.MatchLabels["cni"] = "calico"
	err = old.Update(ctx, crs)
	require.ErrorContains(t, err, "spec.clusterSelector is immutable", "the v1beta2 rule holds at v1beta1")

	applied := metav1.NewTime(time.Unix(1_800_000_000, 0))
	binding := &addonsv1beta1.ClusterResourceSetBinding{ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns}, Spec: addonsv1beta1.ClusterResourceSetBindingSpec{
		ClusterName: "c1",
		Bindings: []*addonsv1beta1.ResourceSetBinding{{ClusterResourceSetName: "cni", Resources: []addonsv1beta1.ResourceBinding{
			{ResourceRef: addonsv1beta1.ResourceRef{Name: "flannel", Kind: "ConfigMap"}, Hash: "sha256:ab", LastAppliedTime: &applied, Applied: true},
			{ResourceRef: addonsv1beta1.ResourceRef{Name: "flannel-config", Kind: "Secret"}},
		}}},
	}}
	require.NoError(t, old.Create(ctx, binding))
	hubBinding := &addonsv1.ClusterResourceSetBinding{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(binding), hubBinding))
	resources := hubBinding.Spec.Bindings[0].Resources
	require.Equal(t, []*bool{ptr.To(true), ptr.To(false)}, []*bool{resources[0].Applied, resources[1].Applied}, "v1beta2 requires applied")
	require.True(t, applied.Equal(&resources[0].LastAppliedTime))
	binding.Spec.Bindings[0].Resources[1].Applied = true
	require.NoError(t, old.Update(ctx, binding))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(binding), hubBinding))
	require.Equal(t, ptr.To(true), hubBinding.Spec.Bindings[0].Resources[1].Applied)
	gotBinding := &addonsv1beta1.ClusterResourceSetBinding{}
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(binding), gotBinding))
	require.Equal(t, binding.Spec, gotBinding.Spec)
}
