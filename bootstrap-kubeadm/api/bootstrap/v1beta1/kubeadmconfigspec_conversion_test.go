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

package v1beta1

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
)

// TestKubeadmConfigSpecUp_ReshapesUpstreamV1Beta1 converts a spec as upstream's v1beta1
// manifests write it, with nothing recorded: the reshaping rules alone (upstream's).
func TestKubeadmConfigSpecUp_ReshapesUpstreamV1Beta1(t *testing.T) {
	in := KubeadmConfigSpec{
		ClusterConfiguration: &ClusterConfiguration{
			ClusterName: "dropped",
			APIServer: APIServer{
				ControlPlaneComponent:  ControlPlaneComponent{ExtraArgs: map[string]string{"v": "2", "audit-log-maxage": "30"}},
				TimeoutForControlPlane: &metav1.Duration{Duration: 4*time.Minute + 900*time.Millisecond},
			},
			Etcd: Etcd{Local: &LocalEtcd{ImageMeta: ImageMeta{ImageTag: "3.6.0-0"}, ExtraEnvs: []bootstrapv1.EnvVar{}}},
			DNS:  DNS{ImageMeta: ImageMeta{ImageRepository: "registry.example/coredns"}},
		},
		InitConfiguration: &InitConfiguration{BootstrapTokens: []BootstrapToken{{Token: "abcdef.0123456789abcdef", TTL: &metav1.Duration{Duration: 90 * time.Minute}}}},
		JoinConfiguration: &JoinConfiguration{
			NodeRegistration: NodeRegistrationOptions{Taints: []corev1.Taint{}, KubeletExtraArgs: map[string]string{"node-labels": "a=b"}},
			Discovery:        Discovery{Timeout: &metav1.Duration{Duration: 5 * time.Minute}, BootstrapToken: &BootstrapTokenDiscovery{UnsafeSkipCAVerification: false}},
		},
		Files: []File{{Path: "/a", Append: true}, {Path: "/b", Append: false, ContentFrom: &FileSource{Secret: SecretFileSource{Name: "s", Key: "k"}}}},
		Users: []User{{Name: "capi", Sudo: ptr.To("ALL=(ALL) NOPASSWD:ALL"), Shell: ptr.To("")}},
	}
	got := KubeadmConfigSpecUp(&in, &bootstrapv1.KubeadmConfigSpec{})
	want := bootstrapv1.KubeadmConfigSpec{
		ClusterConfiguration: bootstrapv1.ClusterConfiguration{
			APIServer: bootstrapv1.APIServer{ExtraArgs: []bootstrapv1.Arg{{Name: "audit-log-maxage", Value: ptr.To("30")}, {Name: "v", Value: ptr.To("2")}}},
			Etcd:      bootstrapv1.Etcd{Local: bootstrapv1.LocalEtcd{ImageTag: "3.6.0-0", ExtraEnvs: &[]bootstrapv1.EnvVar{}}},
			DNS:       bootstrapv1.DNS{ImageRepository: "registry.example/coredns"},
		},
		InitConfiguration: bootstrapv1.InitConfiguration{
			BootstrapTokens: []bootstrapv1.BootstrapToken{{Token: "abcdef.0123456789abcdef", TTLSeconds: ptr.To[int32](5400)}},
			Timeouts:        bootstrapv1.Timeouts{ControlPlaneComponentHealthCheckSeconds: ptr.To[int32](240)},
		},
		JoinConfiguration: bootstrapv1.JoinConfiguration{
			NodeRegistration: bootstrapv1.NodeRegistrationOptions{Taints: &[]corev1.Taint{},
				KubeletExtraArgs: []bootstrapv1.Arg{{Name: "node-labels", Value: ptr.To("a=b")}}},
			Discovery: bootstrapv1.Discovery{BootstrapToken: bootstrapv1.BootstrapTokenDiscovery{}},
			Timeouts: bootstrapv1.Timeouts{ControlPlaneComponentHealthCheckSeconds: ptr.To[int32](240),
				TLSBootstrapSeconds: ptr.To[int32](300)},
		},
		Files: []bootstrapv1.File{{Path: "/a", Append: ptr.To(true)},
			{Path: "/b", ContentFrom: bootstrapv1.FileSource{Secret: bootstrapv1.SecretFileSource{Name: "s", Key: "k"}}}},
		Users: []bootstrapv1.User{{Name: "capi", Sudo: "ALL=(ALL) NOPASSWD:ALL"}},
	}
	require.Empty(t, cmp.Diff(want, got))
	require.NotNil(t, got.JoinConfiguration.NodeRegistration.Taints, "an empty list is kept: it means no taints")
	require.NotNil(t, got.ClusterConfiguration.Etcd.Local.ExtraEnvs, "an empty list is kept")

	back := KubeadmConfigSpecDown(&got, nil)
	require.Equal(t, "4m0s", back.ClusterConfiguration.APIServer.TimeoutForControlPlane.Duration.String(), "truncated to seconds")
	require.Equal(t, in.ClusterConfiguration.APIServer.ExtraArgs, back.ClusterConfiguration.APIServer.ExtraArgs)
	require.Equal(t, []corev1.Taint{}, back.JoinConfiguration.NodeRegistration.Taints)
	require.Empty(t, back.ClusterConfiguration.ClusterName, "v1beta1-only, kept only in the annotation")
	require.Equal(t, "5m0s", back.JoinConfiguration.Discovery.Timeout.Duration.String())
}

// TestKubeadmConfigSpecUp_KeepsRecordedDetailOfThePartsTheClientLeftAlone writes back a v1beta1
// read of a v1beta2 spec with one part changed: the other parts keep what v1beta1 cannot say
// (false vs unset, the kubeadm timeouts it has no field for), the changed part is mapped.
func TestKubeadmConfigSpecUp_KeepsRecordedDetailOfThePartsTheClientLeftAlone(t *testing.T) {
	recorded := bootstrapv1.KubeadmConfigSpec{
		InitConfiguration: bootstrapv1.InitConfiguration{Timeouts: bootstrapv1.Timeouts{KubeletHealthCheckSeconds: ptr.To[int32](77),
			ControlPlaneComponentHealthCheckSeconds: ptr.To[int32](100)}},
		JoinConfiguration: bootstrapv1.JoinConfiguration{Timeouts: bootstrapv1.Timeouts{ControlPlaneComponentHealthCheckSeconds: ptr.To[int32](200)}},
		Files:             []bootstrapv1.File{{Path: "/a", Append: ptr.To(false)}},
		Users:             []bootstrapv1.User{{Name: "u", LockPassword: ptr.To(false)}},
		ClusterConfiguration: bootstrapv1.ClusterConfiguration{APIServer: bootstrapv1.APIServer{
			ExtraVolumes: []bootstrapv1.HostPathMount{{Name: "v", HostPath: "/h", MountPath: "/m", ReadOnly: ptr.To(false)}}}},
	}
	read := KubeadmConfigSpecDown(&recorded, nil)
	read.PreKubeadmCommands = []string{"echo changed"}
	read.Users[0].Name = "renamed"

	got := KubeadmConfigSpecUp(&read, &recorded)
	require.Equal(t, ptr.To(false), got.Files[0].Append, "files untouched: false stays false")
	require.Equal(t, ptr.To(false), got.ClusterConfiguration.APIServer.ExtraVolumes[0].ReadOnly)
	require.Equal(t, ptr.To[int32](77), got.InitConfiguration.Timeouts.KubeletHealthCheckSeconds)
	require.Equal(t, ptr.To[int32](200), got.JoinConfiguration.Timeouts.ControlPlaneComponentHealthCheckSeconds,
		"timeoutForControlPlane unchanged: the join value is not overwritten by the init one")
	require.Equal(t, []string{"echo changed"}, got.PreKubeadmCommands)
	require.Equal(t, "renamed", got.Users[0].Name)

	// A changed timeoutForControlPlane is the client's intent for init and join alike (upstream).
	read.ClusterConfiguration.APIServer.TimeoutForControlPlane = &metav1.Duration{Duration: time.Minute}
	got = KubeadmConfigSpecUp(&read, &recorded)
	require.Equal(t, ptr.To[int32](60), got.InitConfiguration.Timeouts.ControlPlaneComponentHealthCheckSeconds)
	require.Equal(t, ptr.To[int32](60), got.JoinConfiguration.Timeouts.ControlPlaneComponentHealthCheckSeconds)
	require.Equal(t, ptr.To[int32](77), got.InitConfiguration.Timeouts.KubeletHealthCheckSeconds)
}
