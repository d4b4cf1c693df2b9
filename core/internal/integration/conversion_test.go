package integration

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	addonsv1beta1 "capstan.dev/contracts/api/addons/v1beta1"
	"capstan.dev/contracts/api/core/converters"
	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	ipamv1alpha1 "capstan.dev/contracts/api/ipam/v1alpha1"
	ipamv1beta1 "capstan.dev/contracts/api/ipam/v1beta1"
	runtimev1alpha1 "capstan.dev/contracts/api/runtime/v1alpha1"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/conversion"
	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/manager"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/controller/cluster"
	"capstan.dev/core/internal/controller/machine"
)

// conversionScheme knows every version of the core kinds, as the core manager's does.
func conversionScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s, err := envtest.DefaultScheme()
	require.NoError(t, err)
	require.NoError(t, clusterv1beta1.AddToScheme(s))
	require.NoError(t, addonsv1beta1.AddToScheme(s))
	require.NoError(t, ipamv1beta1.AddToScheme(s))
	require.NoError(t, ipamv1alpha1.AddToScheme(s))
	require.NoError(t, runtimev1.AddToScheme(s))
	require.NoError(t, runtimev1alpha1.AddToScheme(s))
	return s
}

// startCoreWithWebhook runs the Cluster and Machine controllers and the conversion webhook on
// a loopback port, as `capstanctl init --dev` runs the core manager, and waits until the
// webhook is configured in every CRD the core serves at v1beta1 (the manager's readiness).
func startCoreWithWebhook(t *testing.T, certValidity time.Duration) (stop func(), webhookAddr string) {
	t.Helper()
	opts := manager.NewOptions("core-conversion", "core-conversion", "default")
	opts.LeaderElect, opts.MetricsBindAddress, opts.HealthProbeBindAddress = false, "0", "0"
	opts.Webhook.BindAddress = envtest.FreeLoopbackAddr(t)
	opts.Webhook.CertValidity = certValidity
	opts.Webhook.ResyncInterval = time.Second
	mgr, err := manager.New(opts, conversionScheme(t), env.Config)
	require.NoError(t, err)
	resolver := conversion.CRDContractResolver{Reader: mgr.GetClient()}
	require.NoError(t, conversionwebhook.Setup(mgr, opts.Webhook, converters.Kinds(resolver)))
	ctx := context.Background()
	copts := controller.Options{SkipNameValidation: ptr.To(true)}
	cc, err := remote.SetupWithManager(mgr, remote.Options{SecretReader: mgr.GetAPIReader(), Controller: copts})
	require.NoError(t, err)
	require.NoError(t, (&cluster.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Health: cc}).SetupWithManager(ctx, mgr, copts))
	require.NoError(t, (&machine.Reconciler{Client: mgr.GetClient(), Workload: cc}).SetupWithManager(ctx, mgr, copts))
	stop = envtest.StartManager(t, mgr)
	env.WaitForConversionWebhook(t, 60*time.Second, "https://"+opts.Webhook.BindAddress+conversionwebhook.Path, coreCRDs()...)
	return stop, opts.Webhook.BindAddress
}

// coreCRDs are the CRDs the core manager's webhook serves.
func coreCRDs() []string {
	var names []string
	for _, k := range converters.Kinds(nil) {
		names = append(names, contract.CalculateCRDName(k.GroupKind.Group, k.GroupKind.Kind))
	}
	return names
}

// TestConversion_V1Beta1ClientWorksOnObjectsTheV1Beta2ControllersOwn writes a Cluster and a
// Machine through a client built on the v1beta1 types, lets the v1beta2 controllers take them
// over, updates them through v1beta1 again, and checks that nothing either side wrote is lost
// on the round trips through the API server, including what v1beta2 has no field for (the
// references' version, uid and fieldPath, a sub-second drain timeout). Then the manager stops:
// v1beta2 reads go on working and v1beta1 reads fail naming the conversion webhook.
func TestConversion_V1Beta1ClientWorksOnObjectsTheV1Beta2ControllersOwn(t *testing.T) {
	ctx := context.Background()
	stop, _ := startCoreWithWebhook(t, time.Hour)
	ns := env.CreateNamespace(t, "conversion")
	old, err := client.New(env.Config, client.Options{Scheme: conversionScheme(t)})
	require.NoError(t, err)

	infra := crds.New(crds.GenericInfrastructureClusterGVK, ns, "c1")
	require.NoError(t, env.Client.Create(ctx, infra))
	infraRef := &corev1.ObjectReference{APIVersion: crds.InfrastructureGroupVersion.String(), Kind: "GenericInfrastructureCluster",
		Name: "c1", Namespace: ns, UID: "0f1e2d3c", FieldPath: "spec.kept"}
	c := &clusterv1beta1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns},
		Spec: clusterv1beta1.ClusterSpec{
			InfrastructureRef: infraRef,
			ClusterNetwork:    &clusterv1beta1.ClusterNetwork{Pods: &clusterv1beta1.NetworkRanges{CIDRBlocks: []string{"10.244.0.0/16"}}},
		},
	}
	require.NoError(t, old.Create(ctx, c))

	m := &clusterv1beta1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "m1", Namespace: ns},
		Spec: clusterv1beta1.MachineSpec{
			ClusterName:       "c1",
			Bootstrap:         clusterv1beta1.Bootstrap{DataSecretName: ptr.To("m1-bootstrap")},
			InfrastructureRef: corev1.ObjectReference{APIVersion: crds.InfrastructureGroupVersion.String(), Kind: "GenericInfrastructureMachine", Name: "m1", UID: "abc"},
			Version:           ptr.To("v1.37.2"),
			NodeDrainTimeout:  &metav1.Duration{Duration: 1500 * time.Millisecond},
		},
	}
	require.NoError(t, old.Create(ctx, m))

	// The v1beta2 controllers own both: finalizers, conditions and, for the Machine, the Cluster as owner.
	envtest.WaitFor(t, 60*time.Second, "the v1beta2 controllers to take the objects over", func() (bool, error) {
		hc, hm := &clusterv1.Cluster{}, &clusterv1.Machine{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), hc); err != nil {
			return false, err
		}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(m), hm); err != nil {
			return false, err
		}
		return len(hc.Finalizers) > 0 && len(hc.Status.Conditions) > 0 && len(hm.Finalizers) > 0 && len(hm.OwnerReferences) > 0 &&
			len(hm.Status.Conditions) > 0, nil
	})
	hm := &clusterv1.Machine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(m), hm))
	require.Equal(t, int32(1), ptr.Deref(hm.Spec.Deletion.NodeDrainTimeoutSeconds, 0))
	require.Equal(t, "infrastructure.cluster.x-k8s.io", hm.Spec.InfrastructureRef.APIGroup)
	require.Equal(t, "v1.37.2", hm.Spec.Version)

	// Read back through v1beta1: what v1beta2 cannot hold survived, what the controllers wrote shows.
	gotC, gotM := &clusterv1beta1.Cluster{}, &clusterv1beta1.Machine{}
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(c), gotC))
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(m), gotM))
	require.Equal(t, infraRef, gotC.Spec.InfrastructureRef)
	require.Equal(t, "1.5s", gotM.Spec.NodeDrainTimeout.Duration.String())
	require.EqualValues(t, "abc", gotM.Spec.InfrastructureRef.UID)
	require.Contains(t, gotC.Finalizers, clusterv1.ClusterFinalizer)
	require.NotNil(t, gotC.Status.V1Beta2)
	require.NotEmpty(t, gotC.Status.V1Beta2.Conditions)
	require.NotEmpty(t, gotM.OwnerReferences)
	// What upstream's v1beta1 tools (and `kubectl wait --for=condition=Ready`) read: the v1beta1
	// conditions, derived from the v1beta2 ones since Capstan stores none.
	require.True(t, hasV1Beta1Condition(gotC.Status.Conditions, "Ready"), "v1beta1 Cluster conditions: %+v", gotC.Status.Conditions)
	require.True(t, hasV1Beta1Condition(gotC.Status.Conditions, "InfrastructureReady"), "v1beta1 Cluster conditions: %+v", gotC.Status.Conditions)
	require.True(t, hasV1Beta1Condition(gotM.Status.Conditions, "Ready"), "v1beta1 Machine conditions: %+v", gotM.Status.Conditions)

	// Update through v1beta1: the change lands in v1beta2, the unmapped fields stay. The controllers
	// may still be writing the Cluster: a conflict is read again and retried, as a client would.
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := old.Get(ctx, client.ObjectKeyFromObject(c), gotC); err != nil {
			return err
		}
		gotC.Spec.Paused = true
		gotC.Labels = map[string]string{"updated": "through-v1beta1"}
		return old.Update(ctx, gotC)
	}))
	hc := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(c), hc))
	require.Equal(t, ptr.To(true), hc.Spec.Paused)
	require.Equal(t, "through-v1beta1", hc.Labels["updated"])
	// The update sent the derived conditions back: they are not stored (what is recorded, if
	// anything, holds no v1beta1 status conditions).
	if raw, ok := hc.Annotations[conversion.DataAnnotation]; ok {
		var recorded struct {
			Status map[string]any `json:"status"`
		}
		require.NoError(t, json.Unmarshal([]byte(raw), &recorded))
		require.NotContains(t, recorded.Status, "conditions", "derived v1beta1 conditions are never stored")
	}
	envtest.WaitFor(t, 30*time.Second, "the Cluster controller to report the pause", func() (bool, error) {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(c), hc))
		for _, cond := range hc.Status.Conditions {
			if cond.Type == clusterv1.PausedCondition && cond.Status == metav1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(c), gotC))
	require.Equal(t, infraRef, gotC.Spec.InfrastructureRef)
	require.True(t, gotC.Spec.Paused)

	// A Cluster written through v1beta2 reads at v1beta1 with the version its CRD's contract names.
	v2 := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c2", Namespace: ns}, Spec: clusterv1.ClusterSpec{
		InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureCluster", Name: "c2"},
	}}
	require.NoError(t, env.Client.Create(ctx, v2))
	gotV2 := &clusterv1beta1.Cluster{}
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(v2), gotV2))
	require.Equal(t, &corev1.ObjectReference{APIVersion: crds.InfrastructureGroupVersion.String(), Kind: "GenericInfrastructureCluster", Name: "c2", Namespace: ns},
		gotV2.Spec.InfrastructureRef)

	// The manager goes away: v1beta2 still reads, v1beta1 fails and says why.
	stop()
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(c), &clusterv1.Cluster{}))
	err = old.Get(ctx, client.ObjectKeyFromObject(c), &clusterv1beta1.Cluster{})
	require.Error(t, err)
	require.Contains(t, err.Error(), "conversion webhook for cluster.x-k8s.io/v1beta2, Kind=Cluster failed")
	t.Logf("v1beta1 read with the manager down: %v", err)
}

// TestConversion_CertificateRotationReinjectsTheBundleAndReloadsTheServer runs the webhook with
// a certificate valid for 30s (renewed after 20s, leaving a loaded machine 10s to re-inject) and
// checks that a new CA reaches the CRDs, that the server then serves a certificate signed by it,
// and that v1beta1 reads keep working.
func TestConversion_CertificateRotationReinjectsTheBundleAndReloadsTheServer(t *testing.T) {
	ctx := context.Background()
	_, addr := startCoreWithWebhook(t, 30*time.Second)
	ns := env.CreateNamespace(t, "rotation")
	old, err := client.New(env.Config, client.Options{Scheme: conversionScheme(t)})
	require.NoError(t, err)
	m := &clusterv1beta1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m1", Namespace: ns}, Spec: clusterv1beta1.MachineSpec{
		ClusterName: "c1", Bootstrap: clusterv1beta1.Bootstrap{DataSecretName: ptr.To("s")},
		InfrastructureRef: corev1.ObjectReference{APIVersion: crds.InfrastructureGroupVersion.String(), Kind: "GenericInfrastructureMachine", Name: "m1"},
	}}
	require.NoError(t, old.Create(ctx, m))

	first := servedCertificate(t, addr)
	bundle := func() []byte {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: "machines.cluster.x-k8s.io"}, crd))
		return crd.Spec.Conversion.Webhook.ClientConfig.CABundle
	}
	require.NoError(t, verifiedBy(first, bundle()))

	envtest.WaitFor(t, 90*time.Second, "a rotated certificate, trusted by the CRD's bundle, to be served", func() (bool, error) {
		now := servedCertificate(t, addr)
		if now.Equal(first) {
			return false, nil
		}
		return true, verifiedBy(now, bundle())
	})
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(m), &clusterv1beta1.Machine{}))
}

func servedCertificate(t *testing.T, addr string) *x509.Certificate {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the test verifies by hand
	require.NoError(t, err)
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

func verifiedBy(cert *x509.Certificate, bundle []byte) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(bundle)
	_, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: strings.Split(cert.IPAddresses[0].String(), "%")[0]})
	return err
}

// TestConversion_TwoReplicasShareOneTrustRootAndStopWriting runs two replicas of the core
// manager's conversion webhook behind one Service (contracts/envtest.RequireConversionReplicasAgree):
// once both are ready they write no CRD, and a v1beta1 read converts through either replica.
func TestConversion_TwoReplicasShareOneTrustRootAndStopWriting(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "replicas")
	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns}, Spec: clusterv1.ClusterSpec{
		InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, "c1")}}
	require.NoError(t, env.Client.Create(ctx, c))
	old, err := client.New(env.Config, client.Options{Scheme: conversionScheme(t)})
	require.NoError(t, err)
	env.RequireConversionReplicasAgree(t, envtest.ConversionReplicas{
		Name: "core", Scheme: conversionScheme(t), CRDs: coreCRDs(),
		RBAC: []string{"../../rbac.go", "../controller/cluster/controller.go"},
		Setup: func(mgr ctrl.Manager, webhook conversionwebhook.Options) error {
			return conversionwebhook.Setup(mgr, webhook, converters.Kinds(conversion.CRDContractResolver{Reader: mgr.GetClient()}))
		},
		Convert: func() error { return old.Get(ctx, client.ObjectKeyFromObject(c), &clusterv1beta1.Cluster{}) },
	})
}

func hasV1Beta1Condition(conds clusterv1beta1.Conditions, t string) bool {
	for _, c := range conds {
		if c.Type == t && c.Status != "" {
			return true
		}
	}
	return false
}
