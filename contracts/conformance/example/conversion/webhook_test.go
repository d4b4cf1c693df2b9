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

package conversion

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1alpha1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha1"
	infrav1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha2"
	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/manager"
)

// servedCRDNames are the CRDs the example manager's webhook serves.
var servedCRDNames = []string{
	"exampleclusters.infrastructure.example.capstan.dev",
	"examplemachines.infrastructure.example.capstan.dev",
	"examplemachinetemplates.infrastructure.example.capstan.dev",
}

// startWebhook runs the example manager's conversion webhook on a loopback port, as a local
// process runs it (--webhook-bind-address=127.0.0.1:<port>), as a user holding only the
// manager's RBAC markers, and waits until every served CRD calls it.
func startWebhook(t *testing.T) (stop func()) {
	t.Helper()
	opts := manager.NewOptions("example-conversion", "example-conversion", "default")
	opts.LeaderElect, opts.MetricsBindAddress, opts.HealthProbeBindAddress = false, "0", "0"
	opts.Webhook.BindAddress = envtest.FreeLoopbackAddr(t)
	opts.Webhook.ResyncInterval = time.Second
	cfg := env.UserFromRBACMarkers(t, "example-conversion", "../cmd/example-manager/main.go")
	s, err := scheme()
	require.NoError(t, err)
	mgr, err := manager.New(opts, s, cfg)
	require.NoError(t, err)
	require.NoError(t, conversionwebhook.Setup(mgr, opts.Webhook, Kinds()))
	stop = envtest.StartManager(t, mgr)
	env.WaitForConversionWebhook(t, 60*time.Second, "https://"+opts.Webhook.BindAddress+conversionwebhook.Path, servedCRDNames...)
	return stop
}

// TestCRDs_StoreV1Alpha2AndDeclareBothVersionsForContractV1Beta2 checks what make generate's
// fix-up of config/crd/v1alpha2 is for: one storage version, v1alpha2, and the contract label
// naming both versions (controller-gen alone would mark both stored and keep either label).
func TestCRDs_StoreV1Alpha2AndDeclareBothVersionsForContractV1Beta2(t *testing.T) {
	for _, name := range servedCRDNames {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Name: name}, crd))
		require.Equal(t, "v1alpha1_v1alpha2", crd.Labels["cluster.x-k8s.io/v1beta2"], name)
		require.Equal(t, []string{"v1alpha2"}, crd.Status.StoredVersions, name)
	}
}

// TestConversion_V1Alpha1AndV1Alpha2ClientsSeeTheSameMachine writes ExampleMachines at one version
// and reads them at the other through the webhook: addressesFromPools moves between spec and
// spec.network both ways, an update at v1alpha1 lands in the stored v1alpha2 object, and
// once the manager is gone v1alpha1 reads fail naming the webhook (so the conversions seen
// before were its work, not the API server's apiVersion rewrite).
func TestConversion_V1Alpha1AndV1Alpha2ClientsSeeTheSameMachine(t *testing.T) {
	ctx := context.Background()
	stop := startWebhook(t)
	ns := env.CreateNamespace(t, "conversion")

	old := &infrav1alpha1.ExampleMachine{ObjectMeta: metav1.ObjectMeta{Name: "m1", Namespace: ns},
		Spec: infrav1alpha1.ExampleMachineSpec{ProviderID: "example:///m1", AddressesFromPools: pools}}
	require.NoError(t, env.Client.Create(ctx, old))
	hub := &infrav1.ExampleMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(old), hub))
	require.Equal(t, pools, hub.Spec.Network.AddressesFromPools, "v1alpha1 written, v1alpha2 read")
	require.Equal(t, "example:///m1", hub.Spec.ProviderID)

	created := &infrav1.ExampleMachine{ObjectMeta: metav1.ObjectMeta{Name: "m2", Namespace: ns},
		Spec: infrav1.ExampleMachineSpec{Network: infrav1.ExampleMachineNetwork{AddressesFromPools: pools[1:]}}}
	require.NoError(t, env.Client.Create(ctx, created))
	spoke := &infrav1alpha1.ExampleMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(created), spoke))
	require.Equal(t, pools[1:], spoke.Spec.AddressesFromPools, "v1alpha2 written, v1alpha1 read")

	// An update through v1alpha1, as the example's reconcilers (still on v1alpha1) write.
	spoke.Spec.AddressesFromPools = pools
	spoke.Spec.ProviderID = "example:///m2"
	require.NoError(t, env.Client.Update(ctx, spoke))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(created), hub))
	require.Equal(t, pools, hub.Spec.Network.AddressesFromPools)
	require.Equal(t, "example:///m2", hub.Spec.ProviderID)

	tmpl := &infrav1alpha1.ExampleMachineTemplate{ObjectMeta: metav1.ObjectMeta{Name: "t1", Namespace: ns},
		Spec: infrav1alpha1.ExampleMachineTemplateSpec{Template: infrav1alpha1.ExampleMachineTemplateResource{
			Spec: infrav1alpha1.ExampleMachineSpec{AddressesFromPools: pools}}}}
	require.NoError(t, env.Client.Create(ctx, tmpl))
	hubTmpl := &infrav1.ExampleMachineTemplate{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(tmpl), hubTmpl))
	require.Equal(t, pools, hubTmpl.Spec.Template.Spec.Network.AddressesFromPools)

	stop()
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(old), &infrav1.ExampleMachine{}))
	err := env.Client.Get(ctx, client.ObjectKeyFromObject(old), &infrav1alpha1.ExampleMachine{})
	require.ErrorContains(t, err, "conversion webhook for infrastructure.example.capstan.dev/v1alpha2, Kind=ExampleMachine failed")
}
