/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1beta2_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func newClusterResourceSet(ns string) *addonsv1.ClusterResourceSet {
	return &addonsv1.ClusterResourceSet{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "crs-", Namespace: ns},
		Spec: addonsv1.ClusterResourceSetSpec{
			ClusterSelector: clusterv1.LabelSelector{MatchLabels: map[string]string{"cni": "flannel"}},
			Resources:       []addonsv1.ResourceRef{{Name: "flannel", Kind: "ConfigMap"}, {Name: "secret-addon", Kind: "Secret"}},
		},
	}
}

// TestAdmission_RejectsInvalidClusterResourceSets sends one invalid object per rule (upstream's
// webhook rules, here in the CRD) and checks the apiserver names the field and what is allowed.
func TestAdmission_RejectsInvalidClusterResourceSets(t *testing.T) {
	ns := env.CreateNamespace(t, "crs-admission")
	for _, tc := range []struct {
		name   string
		mutate func(*addonsv1.ClusterResourceSet)
		want   []string
	}{
		{"NoSelector", func(c *addonsv1.ClusterResourceSet) { c.Spec.ClusterSelector = clusterv1.LabelSelector{} },
			[]string{"spec.clusterSelector: Required value"}},
		{"UnknownResourceKind", func(c *addonsv1.ClusterResourceSet) { c.Spec.Resources[1].Kind = "Deployment" },
			[]string{"spec.resources[1].kind", `Unsupported value: "Deployment": supported values: "Secret", "ConfigMap"`}},
		{"UnknownStrategy", func(c *addonsv1.ClusterResourceSet) { c.Spec.Strategy = "Always" },
			[]string{"spec.strategy", `Unsupported value: "Always": supported values: "ApplyOnce", "Reconcile"`}},
		{"NoResources", func(c *addonsv1.ClusterResourceSet) { c.Spec.Resources = nil },
			[]string{"spec.resources", "Required value"}},
		{"ResourceNameNotADNSName", func(c *addonsv1.ClusterResourceSet) { c.Spec.Resources[0].Name = "Flannel_CNI" },
			[]string{"spec.resources[0].name", "should match"}},
		{"SelectorOperatorUnknown", func(c *addonsv1.ClusterResourceSet) {
			c.Spec.ClusterSelector = clusterv1.LabelSelector{MatchExpressions: []clusterv1.LabelSelectorRequirement{{Key: "cni", Operator: "Equals"}}}
		}, []string{"spec.clusterSelector.matchExpressions[0].operator", `Unsupported value: "Equals"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crs := newClusterResourceSet(ns)
			tc.mutate(crs)
			env.RequireInvalid(t, crs, tc.want...)
		})
	}
}

// An empty selector written out ({}, or with empty lists) would select nothing: refused.
func TestAdmission_RejectsAnEmptyClusterSelector(t *testing.T) {
	ns := env.CreateNamespace(t, "crs-admission")
	for _, selector := range []map[string]any{{}, {"matchLabels": map[string]any{}, "matchExpressions": []any{}}} {
		obj := env.WithField(t, newClusterResourceSet(ns), selector, "spec", "clusterSelector")
		env.RequireInvalid(t, obj, "spec.clusterSelector", "spec.clusterSelector is empty: an empty selector selects no Cluster")
	}
}

func TestAdmission_ClusterResourceSetStrategyDefaultsToApplyOnce(t *testing.T) {
	ns := env.CreateNamespace(t, "crs-admission")
	crs := newClusterResourceSet(ns)
	require.NoError(t, env.Client.Create(context.Background(), crs))
	require.Equal(t, string(addonsv1.ClusterResourceSetStrategyApplyOnce), crs.Spec.Strategy)
}

// TestAdmission_ClusterResourceSetSelectorAndStrategyAreImmutable: as upstream's webhook, the
// selector and the strategy cannot change (removing the strategy re-defaults it to ApplyOnce,
// which is a change too), while the resources can.
func TestAdmission_ClusterResourceSetSelectorAndStrategyAreImmutable(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "crs-admission")
	crs := newClusterResourceSet(ns)
	crs.Spec.Strategy = string(addonsv1.ClusterResourceSetStrategyReconcile)
	require.NoError(t, env.Client.Create(ctx, crs))

	for _, tc := range []struct {
		name   string
		mutate func(*addonsv1.ClusterResourceSet)
		want   []string
	}{
		{"Strategy", func(c *addonsv1.ClusterResourceSet) { c.Spec.Strategy = "ApplyOnce" },
			[]string{"spec.strategy", "spec.strategy is immutable (it was Reconcile): delete the ClusterResourceSet and create a new one"}},
		{"StrategyRemoved", func(c *addonsv1.ClusterResourceSet) { c.Spec.Strategy = "" },
			[]string{"spec.strategy", "spec.strategy is immutable (it was Reconcile)"}},
		{"Selector", func(c *addonsv1.ClusterResourceSet) { c.Spec.ClusterSelector.MatchLabels["cni"] = "calico" },
			[]string{"spec.clusterSelector", "spec.clusterSelector is immutable: delete the ClusterResourceSet and create a new one"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := &addonsv1.ClusterResourceSet{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(crs), cur))
			tc.mutate(cur)
			err := env.Client.Update(ctx, cur)
			require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
			for _, msg := range tc.want {
				require.ErrorContains(t, err, msg)
			}
		})
	}
	cur := &addonsv1.ClusterResourceSet{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(crs), cur))
	cur.Spec.Resources = append(cur.Spec.Resources, addonsv1.ResourceRef{Name: "more", Kind: "ConfigMap"})
	require.NoError(t, env.Client.Update(ctx, cur), "the resources may change")
}

func TestAdmission_ClusterResourceSetBindingClusterNameIsRequiredAndImmutable(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "crs-admission")
	b := &addonsv1.ClusterResourceSetBinding{ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns}}
	b.Spec.Bindings = []addonsv1.ResourceSetBinding{{ClusterResourceSetName: "crs", Resources: []addonsv1.ResourceBinding{
		{ResourceRef: addonsv1.ResourceRef{Name: "flannel", Kind: "ConfigMap"}, Hash: "sha256:00", Applied: new(true),
			LastAppliedTime: metav1.Now()}}}}
	env.RequireInvalid(t, b.DeepCopy(), "spec.clusterName: Required value")

	b.Spec.ClusterName = "c1"
	require.NoError(t, env.Client.Create(ctx, b))
	b.Spec.ClusterName = "c2"
	err := env.Client.Update(ctx, b)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	require.ErrorContains(t, err, `spec.clusterName is immutable (it was "c1")`)
}
