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
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
)

// Upstream's KubeadmControlPlane webhook tolerates a version without "v"; the provider's admission
// policy (config/admission) adds it, on create and on update, before the CRD validates it.
func TestDefaulting_KubeadmControlPlaneVersionGetsItsVPrefix(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "defaults")
	kcp := newKubeadmControlPlane(ns)
	kcp.Spec.Version = "1.37.2"
	require.NoError(t, env.Client.Create(ctx, kcp))
	got := &controlplanev1.KubeadmControlPlane{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kcp), got))
	require.Equal(t, "v1.37.2", got.Spec.Version)

	got.Spec.Version = "1.37.3"
	require.NoError(t, env.Client.Update(ctx, got))
	require.Equal(t, "v1.37.3", got.Spec.Version)
}
