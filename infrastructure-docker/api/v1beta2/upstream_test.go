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
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// Upstream's Docker templates write empty lists for preLoadImages and extraMounts; they must be
// accepted wherever the fields appear.
func TestUpstreamShape_EmptyPreLoadImagesAndExtraMountsAreAccepted(t *testing.T) {
	ns := env.CreateNamespace(t, "upstream")
	empty := map[string]any{"preLoadImages": []any{}, "extraMounts": []any{}}
	for _, tc := range []struct {
		obj  client.Object
		path []string
	}{
		{newDockerMachine(ns), []string{"spec"}},
		{newDockerMachineTemplate(ns), []string{"spec", "template", "spec"}},
		{newDockerMachinePool(ns), []string{"spec", "template"}},
		{newDockerMachinePoolTemplate(ns), []string{"spec", "template", "spec", "template"}},
	} {
		u := env.WithField(t, tc.obj, empty, tc.path...)
		require.NoError(t, env.Client.Create(context.Background(), u), "%s with empty lists", u.GetKind())
	}
}

// imageRepository is a registry and/or repository path, as upstream's: a bare organisation, a
// registry host with a port, or both.
func TestUpstreamShape_LoadBalancerImageRepositoryAcceptsRegistriesAndPaths(t *testing.T) {
	ns := env.CreateNamespace(t, "upstream")
	for i, repo := range []string{"kindest", "localhost:5000", "registry.local:5000/mirror/kind", "gcr.io/k8s-staging-kind"} {
		dc := newDockerCluster(ns)
		dc.Name = dc.Name + "-" + string(rune('a'+i))
		dc.Spec.LoadBalancer.ImageRepository = repo
		require.NoError(t, env.Client.Create(context.Background(), dc), repo)
	}
}

// A failure domain without controlPlane is stored with controlPlane: false, as upstream's
// webhook defaults it, by the provider's admission policy; explicit values are kept.
func TestDefaulting_FailureDomainsGetControlPlaneFalse(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "defaults")
	domains := []clusterv1.FailureDomain{{Name: "a"}, {Name: "b", ControlPlane: ptr.To(true)}, {Name: "c"}}
	want := []clusterv1.FailureDomain{{Name: "a", ControlPlane: ptr.To(false)}, {Name: "b", ControlPlane: ptr.To(true)}, {Name: "c", ControlPlane: ptr.To(false)}}

	dc := newDockerCluster(ns)
	dc.Spec.FailureDomains = domains
	require.NoError(t, env.Client.Create(ctx, dc))
	got := &infrav1.DockerCluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(dc), got))
	require.Equal(t, want, got.Spec.FailureDomains)

	dct := newDockerClusterTemplate(ns)
	dct.Spec.Template.Spec.FailureDomains = domains
	require.NoError(t, env.Client.Create(ctx, dct))
	gotTemplate := &infrav1.DockerClusterTemplate{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(dct), gotTemplate))
	require.Equal(t, want, gotTemplate.Spec.Template.Spec.FailureDomains)

	// Editing the template's metadata stays possible: the immutable spec is defaulted the same.
	gotTemplate.Spec.Template.ObjectMeta.Labels = map[string]string{"tier": "infra"}
	require.NoError(t, env.Client.Update(ctx, gotTemplate))
}
