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
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func testKCP() *controlplanev1.KubeadmControlPlane {
	return &controlplanev1.KubeadmControlPlane{Spec: controlplanev1.KubeadmControlPlaneSpec{
		Version: "v1.37.2",
		MachineTemplate: controlplanev1.KubeadmControlPlaneMachineTemplate{Spec: controlplanev1.KubeadmControlPlaneMachineTemplateSpec{
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DevMachineTemplate", Name: "cp"}}},
		KubeadmConfigSpec: bootstrapv1.KubeadmConfigSpec{
			ClusterConfiguration: bootstrapv1.ClusterConfiguration{CertificatesDir: "/etc/kubernetes/pki"},
			InitConfiguration: bootstrapv1.InitConfiguration{NodeRegistration: bootstrapv1.NodeRegistrationOptions{
				KubeletExtraArgs: []bootstrapv1.Arg{{Name: "v", Value: ptr.To("2")}}}},
			JoinConfiguration: bootstrapv1.JoinConfiguration{NodeRegistration: bootstrapv1.NodeRegistrationOptions{
				KubeletExtraArgs: []bootstrapv1.Arg{{Name: "v", Value: ptr.To("3")}}}},
		},
	}}
}

// configFor is the KubeadmConfig the controller creates for a Machine of kcp.
func configFor(kcp *controlplanev1.KubeadmControlPlane, init bool) *bootstrapv1.KubeadmConfig {
	return &bootstrapv1.KubeadmConfig{ObjectMeta: metav1.ObjectMeta{Name: "cp-abcde"}, Spec: kubeadmConfigSpec(kcp, init)}
}

func TestKubeadmConfigDiffers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		init   bool
		change func(kcp *controlplanev1.KubeadmControlPlane, cfg *bootstrapv1.KubeadmConfig)
		want   string
	}{
		{"the KubeadmConfig the controller created is up to date (init)", true, nil, ""},
		{"the KubeadmConfig the controller created is up to date (join)", false, nil, ""},
		{"an apiServer extraArg", false, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.ClusterConfiguration.APIServer.ExtraArgs = []bootstrapv1.Arg{{Name: "audit-log-maxage", Value: ptr.To("30")}}
		}, "KubeadmConfig cp-abcde differs in spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraArgs"},
		{"a file", true, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.Files = []bootstrapv1.File{{Path: "/etc/motd", Content: "hi"}}
		}, "KubeadmConfig cp-abcde differs in spec.kubeadmConfigSpec.files"},
		{"several fields are listed, sorted", false, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.PreKubeadmCommands = []string{"a"}
			k.Spec.KubeadmConfigSpec.PostKubeadmCommands = []string{"b"}
			k.Spec.KubeadmConfigSpec.ClusterConfiguration.ImageRepository = "registry.example"
			k.Spec.KubeadmConfigSpec.Verbosity = ptr.To[int32](5)
		}, "KubeadmConfig cp-abcde differs in spec.kubeadmConfigSpec.clusterConfiguration.imageRepository, spec.kubeadmConfigSpec.postKubeadmCommands, spec.kubeadmConfigSpec.preKubeadmCommands and 1 more"},
		{"a join setting does not touch the Machine that ran init", true, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.JoinConfiguration.NodeRegistration.KubeletExtraArgs[0].Value = ptr.To("4")
		}, ""},
		{"but does a joined one", false, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.JoinConfiguration.NodeRegistration.KubeletExtraArgs[0].Value = ptr.To("4")
		}, "KubeadmConfig cp-abcde differs in spec.kubeadmConfigSpec.joinConfiguration.nodeRegistration.kubeletExtraArgs"},
		{"an init setting does not touch a joined Machine", false, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.InitConfiguration.SkipPhases = []string{"addon/kube-proxy"}
		}, ""},
		{"but does the Machine that ran init", true, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.InitConfiguration.SkipPhases = []string{"addon/kube-proxy"}
		}, "KubeadmConfig cp-abcde differs in spec.kubeadmConfigSpec.initConfiguration.skipPhases"},
		{"the discovery the bootstrap controller fills in", false, func(_ *controlplanev1.KubeadmControlPlane, c *bootstrapv1.KubeadmConfig) {
			c.Spec.JoinConfiguration.Discovery.BootstrapToken = bootstrapv1.BootstrapTokenDiscovery{Token: "abcdef.0123456789abcdef", CACertHashes: []string{"sha256:00"}}
		}, ""},
		{"a discovery change in the KubeadmControlPlane", false, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.JoinConfiguration.Discovery.BootstrapToken.APIServerEndpoint = "10.0.0.9:6443"
		}, ""},
		{"format cloud-config is the default", true, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.Format = bootstrapv1.CloudConfig
		}, ""},
		{"an empty joinConfiguration.controlPlane is the one the controller adds", false, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.JoinConfiguration.ControlPlane = &bootstrapv1.JoinControlPlane{}
		}, ""},
		// The fields taken over from upstream's schema take part like every other field.
		{"an apiServer extraVolume", false, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.ClusterConfiguration.APIServer.ExtraVolumes = []bootstrapv1.HostPathMount{{Name: "a", HostPath: "/a", MountPath: "/a"}}
		}, "KubeadmConfig cp-abcde differs in spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraVolumes"},
		{"a scheduler extraEnv", true, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.ClusterConfiguration.Scheduler.ExtraEnvs = &[]bootstrapv1.EnvVar{{EnvVar: corev1.EnvVar{Name: "GOGC", Value: "50"}}}
		}, "KubeadmConfig cp-abcde differs in spec.kubeadmConfigSpec.clusterConfiguration.scheduler.extraEnvs"},
		{"the etcd image tag", false, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.ClusterConfiguration.Etcd.Local.ImageTag = "3.7.1-0"
		}, "KubeadmConfig cp-abcde differs in spec.kubeadmConfigSpec.clusterConfiguration.etcd.local.imageTag"},
		{"disks, mounts, boot commands and users", true, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.DiskSetup.Filesystems = []bootstrapv1.Filesystem{{Device: "/dev/sdb", Filesystem: "ext4"}}
			k.Spec.KubeadmConfigSpec.Mounts = []bootstrapv1.MountPoints{{"/dev/sdb", "/data"}}
			k.Spec.KubeadmConfigSpec.BootCommands = []string{"echo boot"}
			k.Spec.KubeadmConfigSpec.Users = []bootstrapv1.User{{Name: "ops", Gecos: "Ops"}}
		}, "KubeadmConfig cp-abcde differs in spec.kubeadmConfigSpec.bootCommands, spec.kubeadmConfigSpec.diskSetup.filesystems, spec.kubeadmConfigSpec.mounts and 1 more"},
		{"imagePullSerial and caCertPath of a joined Machine", false, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.JoinConfiguration.NodeRegistration.ImagePullSerial = ptr.To(false)
			k.Spec.KubeadmConfigSpec.JoinConfiguration.CACertPath = "/etc/pki/ca.crt"
		}, "KubeadmConfig cp-abcde differs in spec.kubeadmConfigSpec.joinConfiguration.caCertPath, spec.kubeadmConfigSpec.joinConfiguration.nodeRegistration.imagePullSerial"},
		{"the discovery file and tlsBootstrapToken, as upstream ignores discovery", false, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.JoinConfiguration.Discovery.File = bootstrapv1.FileDiscovery{KubeConfigPath: "/d.conf"}
			k.Spec.KubeadmConfigSpec.JoinConfiguration.Discovery.TLSBootstrapToken = "abcdef.0123456789abcdef"
		}, ""},
		{"taints: [] is not unset taints", true, func(k *controlplanev1.KubeadmControlPlane, _ *bootstrapv1.KubeadmConfig) {
			k.Spec.KubeadmConfigSpec.InitConfiguration.NodeRegistration.Taints = &[]corev1.Taint{}
		}, "KubeadmConfig cp-abcde differs in spec.kubeadmConfigSpec.initConfiguration.nodeRegistration.taints"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kcp := testKCP()
			cfg := configFor(kcp, tc.init)
			if tc.change != nil {
				tc.change(kcp, cfg)
			}
			require.Equal(t, tc.want, kubeadmConfigDiffers(kcp, cfg))
		})
	}
	require.Empty(t, kubeadmConfigDiffers(testKCP(), nil), "a KubeadmConfig that cannot be read never starts a rollout")
}

func TestWithTemplateMetadata(t *testing.T) {
	obj := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{
		Labels: map[string]string{"tier": "cp", "user": "mine", clusterv1.ClusterNameLabel: "c1"},
		Annotations: map[string]string{"note": "x", templateMetadataAnnotation: recordFor(clusterv1.ObjectMeta{
			Labels: map[string]string{"tier": "cp"}, Annotations: map[string]string{"note": "x"}})},
	}}
	labels, annotations, changed := withTemplateMetadata(obj, clusterv1.ObjectMeta{
		Labels: map[string]string{"tier": "cp"}, Annotations: map[string]string{"note": "x"}})
	require.False(t, changed, "in sync: nothing to write")

	labels, annotations, changed = withTemplateMetadata(obj, clusterv1.ObjectMeta{Labels: map[string]string{"env": "prod"}})
	require.True(t, changed)
	require.Equal(t, map[string]string{"env": "prod", "user": "mine", clusterv1.ClusterNameLabel: "c1"}, labels,
		"the template's key it put there goes, the others' stay")
	require.Equal(t, map[string]string{templateMetadataAnnotation: `{"labels":["env"]}`}, annotations)

	unrecorded := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"tier": "cp"}}}
	labels, _, _ = withTemplateMetadata(unrecorded, clusterv1.ObjectMeta{})
	require.Equal(t, map[string]string{"tier": "cp"}, labels, "without a record nothing is removed")
}
