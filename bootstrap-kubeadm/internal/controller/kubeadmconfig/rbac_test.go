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

package kubeadmconfig

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/bootstrap-kubeadm/internal/certs"
	"capstan.dev/bootstrap-kubeadm/internal/cloudinit"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/owner"
)

// TestRBACMarkers_AreEnoughForInitJoinAndMachinePools runs the controller, and the ClusterCache
// it needs, as a user holding only what their kubebuilder:rbac markers grant (the manager's role
// is generated from them), through init with certificate generation and the lock, a worker join
// with a token in the workload cluster (reached with the kubeconfig's own credentials), the
// lock's release, and a MachinePool's join and token rotation (the data Secret updated in place).
func TestRBACMarkers_AreEnoughForInitJoinAndMachinePools(t *testing.T) {
	cfg := env.UserFromRBACMarkers(t, "capstan-kubeadmconfig-rbac-test", "controller.go", "../../../rbac.go")
	startController(t, func(o *controllerOptions) { o.restConfig = cfg }, withTokenTTL(testTokenTTL))
	f := newFixture(t)
	_, cp0 := f.newMachine(t, "cp-0", true)
	got := waitDataSecret(t, cp0)
	require.Contains(t, readData(t, got).files, cloudinit.KubeadmInitConfigPath)
	_, ok := lockHolder(t, f)
	require.True(t, ok)

	_, worker := f.newMachine(t, "worker-0", false)
	waitWaiting(t, worker, "to be initialized")
	f.initializeControlPlane(t)
	got = waitDataSecret(t, worker)
	require.NotEmpty(t, joinConfiguration(t, readData(t, got)).Discovery.BootstrapToken.Token)
	waitLockReleased(t, f)

	mp, pool := f.newMachinePool(t, "pool-0")
	got = waitDataSecret(t, pool)
	old, before := tokenOf(got), readData(t, got)
	envtest.UpdateStatus(t, env.Client, mp, func() { mp.Status.Initialization.InfrastructureProvisioned = ptr.To(true) })
	got = waitTokenReplaced(t, pool, old, 2*testTokenTTL)
	requireDataRenderedWith(t, got, before, tokenOf(got))
}

func waitLockReleased(t *testing.T, f *fixture) {
	t.Helper()
	envtest.WaitFor(t, timeout, "the init lock to be released", func() (bool, error) {
		_, held := lockHolder(t, f)
		return !held, nil
	})
}

// generateCertificates plays the first control plane Machine for tests that start after it.
func (f *fixture) generateCertificates(t *testing.T) {
	t.Helper()
	_, err := certs.LookupOrGenerate(context.Background(), env.Client, env.Client, client.ObjectKeyFromObject(f.cluster),
		owner.ClusterReference(f.cluster), time.Now(), certs.Plan{})
	require.NoError(t, err)
}
