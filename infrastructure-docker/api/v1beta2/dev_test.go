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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// devObject is a Dev object in upstream's YAML shape, with the given spec.
func devObject(ns, kind, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(infrav1.GroupVersion.WithKind(kind))
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// TestDev_ObjectsWithoutABackendGetTheDockerBackend creates each Dev kind as upstream manifests
// write it (no backend) and checks that admission stored backend.docker: {}, as upstream's
// webhooks default it; a DevCluster also gets port 6443 and controlPlane: false on its failure
// domains, but keeps an unset port with host 127.0.0.1 (Docker chooses it, as for a DockerCluster).
func TestDev_ObjectsWithoutABackendGetTheDockerBackend(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "dev-defaults")
	for kind, spec := range map[string]map[string]any{
		"DevMachine":             {},
		"DevMachinePool":         {"providerIDList": []any{"docker:////a"}},
		"DevClusterTemplate":     {"template": map[string]any{"spec": map[string]any{}}},
		"DevMachineTemplate":     {"template": map[string]any{"spec": map[string]any{}}},
		"DevMachinePoolTemplate": {"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "b"}}}},
	} {
		obj := devObject(ns, kind, "d1", spec)
		require.NoError(t, env.Client.Create(ctx, obj), kind)
		path := []string{"spec", "backend", "docker"}
		if _, ok := spec["template"]; ok {
			path = append([]string{"spec", "template"}, path...)
		}
		got, found, err := unstructured.NestedMap(obj.Object, path...)
		require.NoError(t, err, kind)
		require.True(t, found, "%s: %v not defaulted in %v", kind, path, obj.Object["spec"])
		require.Empty(t, got, kind)
	}

	dc := &infrav1.DevCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dc1"}}
	require.NoError(t, env.Client.Create(ctx, env.WithField(t, dc, map[string]any{}, "spec")))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(dc), dc))
	require.Equal(t, &infrav1.DockerClusterBackendSpec{}, dc.Spec.Backend.Docker)
	require.Equal(t, clusterv1.APIEndpoint{Port: 6443}, dc.Spec.ControlPlaneEndpoint)

	local := &infrav1.DevCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dc2"}, Spec: infrav1.DevClusterSpec{
		ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: "127.0.0.1"},
		Backend: infrav1.DevClusterBackendSpec{Docker: &infrav1.DockerClusterBackendSpec{
			FailureDomains: []clusterv1.FailureDomain{{Name: "a"}, {Name: "b", ControlPlane: ptr.To(true)}}}},
	}}
	require.NoError(t, env.Client.Create(ctx, local))
	require.Equal(t, clusterv1.APIEndpoint{Host: "127.0.0.1"}, local.Spec.ControlPlaneEndpoint)
	require.Equal(t, []clusterv1.FailureDomain{{Name: "a", ControlPlane: ptr.To(false)}, {Name: "b", ControlPlane: ptr.To(true)}},
		local.Spec.Backend.Docker.FailureDomains)
}

// TestDev_InMemoryBackendIsRefusedNamingTheDockerBackend sends upstream's in-memory backend for
// each Dev kind that has a backend and checks that admission refuses it, saying what to write.
func TestDev_InMemoryBackendIsRefusedNamingTheDockerBackend(t *testing.T) {
	ns := env.CreateNamespace(t, "dev-inmemory")
	inMemory := map[string]any{"inMemory": map[string]any{"vm": map[string]any{"provisioning": map[string]any{"startupDuration": "10s"}}}}
	for kind, spec := range map[string]map[string]any{
		"DevCluster":         {"backend": map[string]any{"inMemory": map[string]any{}}},
		"DevMachine":         {"backend": inMemory},
		"DevMachinePool":     {"backend": inMemory},
		"DevMachineTemplate": {"template": map[string]any{"spec": map[string]any{"backend": inMemory}}},
	} {
		t.Run(kind, func(t *testing.T) {
			env.RequireInvalid(t, devObject(ns, kind, "d1", spec), "backend.inMemory is not offered",
				"on the docker backend only; write backend: {docker: {}} or leave backend out")
		})
	}
}

// TestDev_FullDockerBackendIsStoredAsSent checks that every Docker field under backend.docker
// survives the apiserver (no pruning, no rewriting).
func TestDev_FullDockerBackendIsStoredAsSent(t *testing.T) {
	ns := env.CreateNamespace(t, "dev-full")
	cluster, machine := fullClusterBackend(), fullMachineBackend()
	pool := fullPoolTemplate()
	dc := &infrav1.DevCluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c"}, Spec: infrav1.DevClusterSpec{
		ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: "127.0.0.1", Port: 40123}, Backend: infrav1.DevClusterBackendSpec{Docker: &cluster}}}
	dm := &infrav1.DevMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m"}, Spec: infrav1.DevMachineSpec{
		ProviderID: "docker:////m", Backend: infrav1.DevMachineBackendSpec{Docker: &machine}}}
	dp := &infrav1.DevMachinePool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p"}, Spec: infrav1.DevMachinePoolSpec{
		Backend: infrav1.DevMachinePoolBackendSpec{Docker: &pool}}}
	for _, obj := range []client.Object{dc, dm, dp} {
		env.RequireStoredAsSent(t, obj, func(o client.Object) any {
			switch o := o.(type) {
			case *infrav1.DevCluster:
				return o.Spec
			case *infrav1.DevMachine:
				return o.Spec
			case *infrav1.DevMachinePool:
				return o.Spec
			}
			return nil
		})
	}
}
