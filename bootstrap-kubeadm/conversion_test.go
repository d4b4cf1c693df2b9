package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1beta1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta1"
	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1beta1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta1"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/controller/kubeadmconfig"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/manager"
	"capstan.dev/contracts/testing/crds"
)

// providerCRDs are the CRDs this manager's webhook serves.
var providerCRDs = []string{"kubeadmconfigs.bootstrap.cluster.x-k8s.io", "kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io",
	"kubeadmcontrolplanes.controlplane.cluster.x-k8s.io", "kubeadmcontrolplanetemplates.controlplane.cluster.x-k8s.io"}

// startManager runs the manager as main.go builds it, as a user holding only what the
// kubebuilder:rbac markers grant (the manager's ClusterRole is generated from them), with the
// conversion webhook on a loopback port (as `capstanctl init --dev` and `make run` run it), and
// waits until the webhook is configured in the provider's CRDs.
func startManager(t *testing.T) (stop func()) {
	t.Helper()
	opts := manager.NewOptions("bootstrap-kubeadm-conversion", "bootstrap-kubeadm-conversion", "default", "kubeadmconfig", "kubeadmcontrolplane")
	opts.LeaderElect, opts.MetricsBindAddress, opts.HealthProbeBindAddress = false, "0", "0"
	opts.Webhook.BindAddress = envtest.FreeLoopbackAddr(t)
	opts.Webhook.ResyncInterval = time.Second
	cfg := env.UserFromRBACMarkers(t, "capstan-bootstrap-kubeadm-conversion-test", "rbac.go",
		"internal/controller/kubeadmconfig/controller.go", "internal/controller/kubeadmcontrolplane/controller.go")
	mgr, err := manager.New(opts, env.Client.Scheme(), cfg)
	require.NoError(t, err)
	require.NoError(t, setupConversionWebhook(mgr, opts))
	require.NoError(t, setupControllers(context.Background(), mgr, opts, kubeadmconfig.DefaultTokenTTL))
	stop = envtest.StartManager(t, mgr)
	env.WaitForConversionWebhook(t, 60*time.Second, "https://"+opts.Webhook.BindAddress+conversionwebhook.Path, providerCRDs...)
	return stop
}

// TestConversion_V1Beta1ClientWorksOnObjectsTheV1Beta2ControllersOwn writes a KubeadmConfig and
// a KubeadmControlPlane through a client built on the v1beta1 types, lets the v1beta2 controllers
// take them over, updates them through v1beta1 (and v1beta2) again, and checks that nothing
// either side wrote is lost on the round trips through the API server, including what v1beta2
// has no field for (the kubeadm clusterName, a sub-second timeout, the infrastructure reference's
// uid and fieldPath). Then the manager stops: v1beta2 reads go on, v1beta1 reads fail naming the
// conversion webhook.
func TestConversion_V1Beta1ClientWorksOnObjectsTheV1Beta2ControllersOwn(t *testing.T) {
	ctx := context.Background()
	stop := startManager(t)
	ns := env.CreateNamespace(t, "conversion")

	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns}, Spec: clusterv1.ClusterSpec{
		ControlPlaneRef: clusterv1.ContractVersionedObjectReference{APIGroup: controlplanev1.GroupVersion.Group, Kind: "KubeadmControlPlane", Name: "cp"},
	}}
	require.NoError(t, env.Client.Create(ctx, cluster))
	require.NoError(t, env.Client.Create(ctx, crds.New(crds.GenericInfrastructureMachineTemplateGVK, ns, "cp-infra")))

	kc := &bootstrapv1beta1.KubeadmConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "kc", Namespace: ns, Labels: map[string]string{clusterv1.ClusterNameLabel: "c1"}},
		Spec:       legacySpec(),
	}
	require.NoError(t, env.Client.Create(ctx, kc))
	infraRef := corev1.ObjectReference{APIVersion: crds.InfrastructureGroupVersion.String(), Kind: crds.GenericInfrastructureMachineTemplateGVK.Kind,
		Name: "cp-infra", Namespace: ns, UID: "0f1e2d3c", FieldPath: "spec.kept"}
	kcp := &controlplanev1beta1.KubeadmControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: ns, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: "c1", UID: cluster.UID}}},
		Spec: controlplanev1beta1.KubeadmControlPlaneSpec{
			Replicas: ptr.To[int32](1), Version: "v1.37.2", KubeadmConfigSpec: legacySpec(),
			MachineTemplate: controlplanev1beta1.KubeadmControlPlaneMachineTemplate{InfrastructureRef: infraRef,
				MachineTimeouts: controlplanev1beta1.MachineTimeouts{NodeDrainTimeout: &metav1.Duration{Duration: 1500 * time.Millisecond}}},
			RolloutFields: controlplanev1beta1.RolloutFields{RemediationStrategy: &controlplanev1beta1.RemediationStrategy{
				MaxRetry: ptr.To[int32](3), RetryPeriod: metav1.Duration{Duration: 2 * time.Minute}}},
		},
	}
	require.NoError(t, env.Client.Create(ctx, kcp))

	// The v1beta2 controllers own both: conditions, and the KubeadmControlPlane's finalizer.
	hkc, hkcp := &bootstrapv1.KubeadmConfig{}, &controlplanev1.KubeadmControlPlane{}
	envtest.WaitFor(t, 60*time.Second, "the v1beta2 controllers to take the objects over", func() (bool, error) {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(kc), hkc); err != nil {
			return false, err
		}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(kcp), hkcp); err != nil {
			return false, err
		}
		return len(hkc.Status.Conditions) > 0 && len(hkcp.Finalizers) > 0 && len(hkcp.Status.Conditions) > 0, nil
	})

	// What the controllers read at v1beta2 is the v1beta1 spec, reshaped.
	for _, spec := range []bootstrapv1.KubeadmConfigSpec{hkc.Spec, hkcp.Spec.KubeadmConfigSpec} {
		require.Equal(t, []bootstrapv1.Arg{{Name: "audit-log-maxage", Value: ptr.To("30")}, {Name: "v", Value: ptr.To("2")}},
			spec.ClusterConfiguration.APIServer.ExtraArgs, "sorted by name")
		require.Equal(t, ptr.To[int32](90), spec.InitConfiguration.Timeouts.ControlPlaneComponentHealthCheckSeconds)
		require.Equal(t, ptr.To[int32](90), spec.JoinConfiguration.Timeouts.ControlPlaneComponentHealthCheckSeconds)
		require.Equal(t, &[]corev1.Taint{}, spec.JoinConfiguration.NodeRegistration.Taints, "an empty list: no taints at all")
		require.Equal(t, []bootstrapv1.Partition{
			{Device: "/dev/sdb", Layout: ptr.To(false)},
			{Device: "/dev/sdc", DiskLayout: []bootstrapv1.PartitionSpec{{Percentage: 80, PartitionType: "Linux"}, {Percentage: 20}}},
		}, spec.DiskSetup.Partitions, "v1beta2 holds one of layout and diskLayout")
		require.Equal(t, bootstrapv1.FileContentFormatGoTemplate, spec.Files[0].ContentFormat)
	}
	require.Equal(t, clusterv1.ContractVersionedObjectReference{APIGroup: crds.InfrastructureGroupVersion.Group,
		Kind: crds.GenericInfrastructureMachineTemplateGVK.Kind, Name: "cp-infra"}, hkcp.Spec.MachineTemplate.Spec.InfrastructureRef)
	require.Equal(t, ptr.To[int32](120), hkcp.Spec.Remediation.RetryPeriodSeconds)

	// Read back through v1beta1: what v1beta2 cannot hold survived, what the controllers wrote shows.
	got := &bootstrapv1beta1.KubeadmConfig{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kc), got))
	requireLegacyFieldsKept(t, got.Spec)
	require.NotNil(t, got.Status.V1Beta2)
	require.NotEmpty(t, got.Status.V1Beta2.Conditions)
	gotCP := &controlplanev1beta1.KubeadmControlPlane{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kcp), gotCP))
	requireLegacyFieldsKept(t, gotCP.Spec.KubeadmConfigSpec)
	require.Equal(t, infraRef, gotCP.Spec.MachineTemplate.InfrastructureRef)
	require.Equal(t, "1.5s", gotCP.Spec.MachineTemplate.NodeDrainTimeout.Duration.String())
	require.Contains(t, gotCP.Finalizers, controlplanev1.KubeadmControlPlaneFinalizer)

	// Update through v1beta1: the change lands in v1beta2, the unmapped fields stay.
	updateV1Beta1(t, got, func() { got.Spec.PostKubeadmCommands = []string{"echo updated-through-v1beta1"} })
	updateV1Beta1(t, gotCP, func() { gotCP.Spec.KubeadmConfigSpec.PostKubeadmCommands = []string{"echo updated-through-v1beta1"} })
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kc), hkc))
	require.Equal(t, []string{"echo updated-through-v1beta1"}, hkc.Spec.PostKubeadmCommands)
	require.Equal(t, ptr.To[int32](90), hkc.Spec.JoinConfiguration.Timeouts.ControlPlaneComponentHealthCheckSeconds)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kcp), hkcp))
	require.Equal(t, []string{"echo updated-through-v1beta1"}, hkcp.Spec.KubeadmConfigSpec.PostKubeadmCommands)

	// A v1beta2 client changes the spec: v1beta1 readers see the change and still what only they have.
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(kc), hkc); err != nil {
			return err
		}
		hkc.Spec.PreKubeadmCommands = []string{"echo updated-through-v1beta2"}
		return env.Client.Update(ctx, hkc)
	}))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kc), got))
	require.Equal(t, []string{"echo updated-through-v1beta2"}, got.Spec.PreKubeadmCommands)
	require.Equal(t, []string{"echo updated-through-v1beta1"}, got.Spec.PostKubeadmCommands)
	requireLegacyFieldsKept(t, got.Spec)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kcp), gotCP))
	require.Equal(t, infraRef, gotCP.Spec.MachineTemplate.InfrastructureRef)

	t.Run("a v1beta1 client-side apply of a 200 KiB KubeadmConfigTemplate is accepted", func(t *testing.T) {
		requireLargeClientSideApplyAccepted(t, ns)
	})

	// The manager goes away: v1beta2 still reads, v1beta1 fails and says why.
	stop()
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kc), &bootstrapv1.KubeadmConfig{}))
	err := env.Client.Get(ctx, client.ObjectKeyFromObject(kc), &bootstrapv1beta1.KubeadmConfig{})
	require.Error(t, err)
	require.Contains(t, err.Error(), "conversion webhook for bootstrap.cluster.x-k8s.io/v1beta2, Kind=KubeadmConfig failed")
}

// legacySpec is a kubeadmConfigSpec as upstream's v1beta1 manifests write it, with fields
// v1beta2 dropped (clusterName, kubernetesVersion, the kubeadm apiVersion) or reshaped.
func legacySpec() bootstrapv1beta1.KubeadmConfigSpec {
	return bootstrapv1beta1.KubeadmConfigSpec{
		ClusterConfiguration: &bootstrapv1beta1.ClusterConfiguration{
			TypeMeta:          metav1.TypeMeta{APIVersion: "kubeadm.k8s.io/v1beta3", Kind: "ClusterConfiguration"},
			ClusterName:       "legacy-name",
			KubernetesVersion: "v1.30.0",
			APIServer: bootstrapv1beta1.APIServer{
				ControlPlaneComponent:  bootstrapv1beta1.ControlPlaneComponent{ExtraArgs: map[string]string{"v": "2", "audit-log-maxage": "30"}},
				TimeoutForControlPlane: &metav1.Duration{Duration: 90*time.Second + 500*time.Millisecond},
			},
		},
		// No taints given: the v1beta1 types send taints: null (upstream's manifests set
		// kubeletExtraArgs here and leave taints out).
		InitConfiguration: &bootstrapv1beta1.InitConfiguration{
			NodeRegistration: bootstrapv1beta1.NodeRegistrationOptions{KubeletExtraArgs: map[string]string{"eviction-hard": "nodefs.available<0%"}},
		},
		JoinConfiguration: &bootstrapv1beta1.JoinConfiguration{
			NodeRegistration: bootstrapv1beta1.NodeRegistrationOptions{Taints: []corev1.Taint{}},
		},
		UseExperimentalRetryJoin: true,
		// layout is required in v1beta1 (false: leave the device as it is); diskLayout overrides it.
		DiskSetup: &bootstrapv1beta1.DiskSetup{Partitions: []bootstrapv1beta1.Partition{
			{Device: "/dev/sdb", Layout: false},
			{Device: "/dev/sdc", Layout: false, DiskLayout: []bootstrapv1.PartitionSpec{{Percentage: 80, PartitionType: "Linux"}, {Percentage: 20}}},
		}},
		Files: []bootstrapv1beta1.File{{Path: "/etc/versioned", ContentFormat: bootstrapv1.FileContentFormatGoTemplate, Content: "{{ .KubernetesVersion }}"}},
	}
}

func requireLegacyFieldsKept(t *testing.T, spec bootstrapv1beta1.KubeadmConfigSpec) {
	t.Helper()
	require.NotNil(t, spec.ClusterConfiguration)
	require.Equal(t, "legacy-name", spec.ClusterConfiguration.ClusterName)
	require.Equal(t, "v1.30.0", spec.ClusterConfiguration.KubernetesVersion)
	require.Equal(t, "kubeadm.k8s.io/v1beta3", spec.ClusterConfiguration.APIVersion)
	require.Equal(t, "1m30.5s", spec.ClusterConfiguration.APIServer.TimeoutForControlPlane.Duration.String())
	require.Equal(t, map[string]string{"v": "2", "audit-log-maxage": "30"}, spec.ClusterConfiguration.APIServer.ExtraArgs)
	require.True(t, spec.UseExperimentalRetryJoin)
	require.Nil(t, spec.InitConfiguration.NodeRegistration.Taints, "none given stays none (kubeadm's default taint)")
	require.NotNil(t, spec.JoinConfiguration.NodeRegistration.Taints, "an empty list stays empty (no taints)")
	require.Equal(t, legacySpec().DiskSetup, spec.DiskSetup)
	require.Equal(t, legacySpec().Files, spec.Files)
}

func updateV1Beta1(t *testing.T, obj client.Object, mutate func()) {
	t.Helper()
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		mutate()
		return env.Client.Update(context.Background(), obj)
	}))
}

// requireLargeClientSideApplyAccepted applies a KubeadmConfigTemplate of about 200 KiB of files
// as `kubectl apply` (client-side) does through v1beta1: created with its last-applied copy in
// an annotation, then changed with a merge patch that replaces that copy. Both are accepted (as
// upstream): the conversion-data annotation beside the 200 KiB copy holds only what the other
// version cannot express, so the annotations stay under the API server's 256 KiB limit on every
// conversion. v1beta1 reads back what was applied. (It runs within the test above: a manager
// starts once per process.)
func requireLargeClientSideApplyAccepted(t *testing.T, ns string) {
	ctx := context.Background()
	tpl := &bootstrapv1beta1.KubeadmConfigTemplate{ObjectMeta: metav1.ObjectMeta{Name: "large", Namespace: ns}}
	tpl.Spec.Template.Spec = legacySpec()
	for i := range 4 {
		tpl.Spec.Template.Spec.Files = append(tpl.Spec.Template.Spec.Files,
			bootstrapv1beta1.File{Path: fmt.Sprintf("/etc/large-%d", i), Content: strings.Repeat("x", 50<<10)})
	}
	withLastApplied(t, tpl)
	require.NoError(t, env.Client.Create(ctx, tpl))

	applied := tpl.DeepCopy()
	applied.Spec.Template.Spec.Files[1].Content = strings.Repeat("y", 50<<10)
	withLastApplied(t, applied)
	require.NoError(t, env.Client.Patch(ctx, applied, client.MergeFrom(tpl)))

	got := &bootstrapv1beta1.KubeadmConfigTemplate{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(tpl), got))
	require.Equal(t, applied.Spec, got.Spec)
	require.Equal(t, applied.Annotations[lastAppliedAnnotation], got.Annotations[lastAppliedAnnotation])
	stored := &bootstrapv1.KubeadmConfigTemplate{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(tpl), stored))
	require.Less(t, len(stored.Annotations[conversion.DataAnnotation]), 1<<10,
		"v1beta2 records only what it cannot express: %.300s", stored.Annotations[conversion.DataAnnotation])
}

const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// withLastApplied sets kubectl's last-applied annotation to obj as it is (without that
// annotation), as a client-side apply does.
func withLastApplied(t *testing.T, obj *bootstrapv1beta1.KubeadmConfigTemplate) {
	t.Helper()
	c := obj.DeepCopy()
	c.TypeMeta = metav1.TypeMeta{APIVersion: bootstrapv1beta1.GroupVersion.String(), Kind: "KubeadmConfigTemplate"}
	c.ResourceVersion = ""
	delete(c.Annotations, lastAppliedAnnotation)
	raw, err := json.Marshal(c)
	require.NoError(t, err)
	metav1.SetMetaDataAnnotation(&obj.ObjectMeta, lastAppliedAnnotation, string(raw))
}

// TestConversion_TwoReplicasShareOneTrustRootAndStopWriting runs two replicas of the manager's
// conversion webhook behind one Service (contracts/envtest.RequireConversionReplicasAgree): once
// both are ready they write no CRD, and a v1beta1 read converts through either replica.
func TestConversion_TwoReplicasShareOneTrustRootAndStopWriting(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "replicas")
	kc := &bootstrapv1.KubeadmConfig{ObjectMeta: metav1.ObjectMeta{Name: "kc", Namespace: ns}}
	require.NoError(t, env.Client.Create(ctx, kc))
	env.RequireConversionReplicasAgree(t, envtest.ConversionReplicas{
		Name: "bootstrap-kubeadm", Scheme: env.Client.Scheme(), CRDs: providerCRDs,
		RBAC: []string{"rbac.go", "internal/controller/kubeadmconfig/controller.go", "internal/controller/kubeadmcontrolplane/controller.go"},
		Setup: func(mgr ctrl.Manager, webhook conversionwebhook.Options) error {
			return setupConversionWebhook(mgr, &manager.Options{Webhook: webhook})
		},
		Convert: func() error {
			return env.Client.Get(ctx, client.ObjectKeyFromObject(kc), &bootstrapv1beta1.KubeadmConfig{})
		},
	})
}
