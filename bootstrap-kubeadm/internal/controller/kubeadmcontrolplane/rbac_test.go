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

package kubeadmcontrolplane

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/contracts/envtest"
)

// TestRBACMarkers_AreEnoughForTheWholeLifecycle runs the controller, and the ClusterCache it
// needs, as a user holding only what their kubebuilder:rbac markers grant (the manager's role is
// generated from them): certificates, cloning, init and join Machines, a scale
// down, and the deletion.
func TestRBACMarkers_AreEnoughForTheWholeLifecycle(t *testing.T) {
	cfg := env.UserFromRBACMarkers(t, "capstan-kubeadmcontrolplane-rbac-test", "controller.go", "../../../rbac.go")
	startController(t, func(o *controllerOptions) { o.restConfig = cfg })
	f := newFixture(t, func(o *fixtureOptions) { o.replicas = 3 })
	f.growTo(3)
	f.waitKCP("3 ready", func(k *controlplanev1.KubeadmControlPlane) error {
		if ptr.Deref(k.Status.ReadyReplicas, 0) != 3 {
			return fmt.Errorf("status %+v", k.Status)
		}
		return nil
	})
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Replicas = ptr.To(int32(1)) })
	f.waitMachines(1)
	require.NoError(t, env.Client.Delete(context.Background(), f.kcp))
	envtest.WaitFor(t, timeout, "the KubeadmControlPlane to be gone", func() (bool, error) {
		err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(f.kcp), &controlplanev1.KubeadmControlPlane{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}
