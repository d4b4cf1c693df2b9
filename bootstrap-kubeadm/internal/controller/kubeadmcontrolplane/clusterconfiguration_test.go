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
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// kubeadmUploadedConfiguration is the ClusterConfiguration `kubeadm init` v1.37 uploads into
// kube-system/kubeadm-config for a KubeadmControlPlane that sets nothing in it: its defaults
// written out.
const kubeadmUploadedConfiguration = `apiServer: {}
apiVersion: kubeadm.k8s.io/v1beta4
caCertificateValidityPeriod: 87600h0m0s
certificateValidityPeriod: 8760h0m0s
certificatesDir: /etc/kubernetes/pki
clusterName: c1
controlPlaneEndpoint: 10.0.0.1:6443
controllerManager: {}
dns: {}
encryptionAlgorithm: RSA-2048
etcd:
  local:
    dataDir: /var/lib/etcd
imageRepository: registry.k8s.io
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
networking:
  dnsDomain: cluster.local
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
proxy: {}
scheduler: {}
`

// changeEveryRolledField sets each ClusterConfiguration field a rollout carries into the
// workload cluster, as a user would in spec.kubeadmConfigSpec.clusterConfiguration.
func changeEveryRolledField(k *controlplanev1.KubeadmControlPlane) {
	cc := &k.Spec.KubeadmConfigSpec.ClusterConfiguration
	cc.APIServer.ExtraArgs = []bootstrapv1.Arg{{Name: "event-ttl", Value: ptr.To("2h")}}
	cc.APIServer.CertSANs = []string{"api.example.internal"}
	cc.APIServer.ExtraVolumes = []bootstrapv1.HostPathMount{{Name: "audit", HostPath: "/var/log/audit", MountPath: "/var/log/audit"}}
	cc.ControllerManager.ExtraArgs = []bootstrapv1.Arg{{Name: "node-monitor-grace-period", Value: ptr.To("50s")}}
	cc.Scheduler.ExtraArgs = []bootstrapv1.Arg{{Name: "profiling", Value: ptr.To("false")}}
	cc.Etcd.Local.ExtraArgs = []bootstrapv1.Arg{{Name: "quota-backend-bytes", Value: ptr.To("8589934592")}}
	cc.ImageRepository = "mirror.example.internal/k8s"
	cc.FeatureGates = map[string]bool{"EtcdLearnerMode": true}
	cc.CertificateValidityPeriodDays = 200
	cc.EncryptionAlgorithm = "ECDSA-P256"
}

// wantRolledConfiguration is kubeadmUploadedConfiguration after changeEveryRolledField's rollout
// at version: what the Cluster decides (clusterName, networking, endpoint) and what the rollout
// cannot change (the CA validity) kept; the etcd member's settings replaced, so its default
// dataDir is kubeadm's again.
func wantRolledConfiguration(version string) map[string]any {
	want := map[string]any{}
	if err := yaml.Unmarshal([]byte(fmt.Sprintf(`apiServer:
  certSANs: [api.example.internal]
  extraArgs: [{name: event-ttl, value: 2h}]
  extraVolumes: [{name: audit, hostPath: /var/log/audit, mountPath: /var/log/audit}]
apiVersion: kubeadm.k8s.io/v1beta4
caCertificateValidityPeriod: 87600h0m0s
certificateValidityPeriod: 4800h0m0s
certificatesDir: /etc/kubernetes/pki
clusterName: c1
controlPlaneEndpoint: 10.0.0.1:6443
controllerManager:
  extraArgs: [{name: node-monitor-grace-period, value: 50s}]
dns: {}
encryptionAlgorithm: ECDSA-P256
etcd:
  local:
    extraArgs: [{name: quota-backend-bytes, value: "8589934592"}]
featureGates: {EtcdLearnerMode: true}
imageRepository: mirror.example.internal/k8s
kind: ClusterConfiguration
kubernetesVersion: %s
networking: {dnsDomain: cluster.local, podSubnet: 10.244.0.0/16, serviceSubnet: 10.96.0.0/12}
proxy: {}
scheduler:
  extraArgs: [{name: profiling, value: "false"}]
`, version)), &want); err != nil {
		panic(err)
	}
	return want
}

// TestClusterConfiguration_RolloutWritesTheSpecBeforeTheFirstJoin: a change of
// spec.kubeadmConfigSpec.clusterConfiguration alone (no version change) puts every rolled field
// into the workload cluster's kube-system/kubeadm-config before the replacing Machine exists
// (read on every event of a new Machine: kubeadm join --control-plane builds the node's static
// Pods from it), and keeps what the Cluster decided.
func TestClusterConfiguration_RolloutWritesTheSpecBeforeTheFirstJoin(t *testing.T) {
	f := availableControlPlane(t, kubeadmUploadedConfiguration)
	old := f.machines()
	require.Len(t, old, 1)

	var mu sync.Mutex
	var seen []string
	onEvent(t, &clusterv1.MachineList{}, client.InNamespace(f.ns), func(obj client.Object) {
		if obj.GetName() == old[0].Name {
			return
		}
		diff := cmp.Diff(wantRolledConfiguration(testVersion), clusterConfiguration(t))
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, diff)
	})

	f.updateKCP(changeEveryRolledField)
	f.rollUntil(1, "the Machine replaced", func(m *clusterv1.Machine) bool { return m.Name != old[0].Name })

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, seen, "no event of the new Machine")
	for _, diff := range seen {
		require.Empty(t, diff, "a new Machine existed while kubeadm-config was not the spec's (-want +got)")
	}
}

// TestClusterConfiguration_RestartAfterTheWriteConverges: a controller that wrote kubeadm-config
// and stopped before adding a Machine (kill -9 between the two writes) is followed by one that
// adds the Machine without writing the ConfigMap again.
func TestClusterConfiguration_RestartAfterTheWriteConverges(t *testing.T) {
	stop := startController(t)
	f := newFixture(t)
	f.growTo(1)
	f.waitCondition(controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionTrue, "")
	stop()
	ctx := context.Background()
	cm := &corev1.ConfigMap{}
	require.NoError(t, env.Client.Get(ctx, kubeadmConfigMap, cm))
	cm.Data[clusterConfigurationKey] = kubeadmUploadedConfiguration
	require.NoError(t, env.Client.Update(ctx, cm))

	f.updateKCP(changeEveryRolledField)
	kcp := &controlplanev1.KubeadmControlPlane{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(f.kcp), kcp))
	require.NoError(t, updateClusterConfiguration(ctx, env.Client, kcp)) // what the stopped controller did
	require.NoError(t, env.Client.Get(ctx, kubeadmConfigMap, cm))
	written := cm.ResourceVersion

	startController(t)
	f.waitMachines(2)
	require.NoError(t, env.Client.Get(ctx, kubeadmConfigMap, cm))
	require.Equal(t, written, cm.ResourceVersion, "kubeadm-config written again")
	require.Empty(t, cmp.Diff(wantRolledConfiguration(testVersion), clusterConfiguration(t)))
}

// setClusterConfiguration on kubeadm's own tree: the etcd kind followed, unset values removed,
// an unset imageRepository left as kubeadm wrote it, and nothing changed when nothing differs
// (no write in a rollout whose ConfigMap is already right).
func TestSetClusterConfiguration(t *testing.T) {
	external := bootstrapv1.Etcd{External: bootstrapv1.ExternalEtcd{Endpoints: []string{"https://10.0.0.8:2379"},
		CAFile: "/etc/etcd/ca.crt", CertFile: "/etc/etcd/client.crt", KeyFile: "/etc/etcd/client.key"}}
	for name, tc := range map[string]struct {
		have   string
		mutate func(*controlplanev1.KubeadmControlPlane)
		want   string // the fields of the result to compare, as YAML
	}{
		"ExternalEtcdReplacesTheWholeSection": {
			have: "etcd:\n  external:\n    endpoints: [https://10.0.0.7:2379]\n    caFile: a\n    certFile: b\n    keyFile: c\n",
			mutate: func(k *controlplanev1.KubeadmControlPlane) {
				k.Spec.KubeadmConfigSpec.ClusterConfiguration.Etcd = external
			},
			want: "etcd:\n  external:\n    endpoints: [https://10.0.0.8:2379]\n    caFile: /etc/etcd/ca.crt\n    certFile: /etc/etcd/client.crt\n    keyFile: /etc/etcd/client.key\n",
		},
		"FeatureGatesAndFlagsRemovedFromTheSpecGoFromTheConfigMap": {
			have: "featureGates: {EtcdLearnerMode: true}\napiServer:\n  extraArgs: [{name: event-ttl, value: 2h}]\nencryptionAlgorithm: ECDSA-P256\n",
			want: "apiServer: {}\n",
		},
		"UnsetImageRepositoryKeepsKubeadms": {
			have: "imageRepository: registry.k8s.io\n",
			want: "imageRepository: registry.k8s.io\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			kcp := &controlplanev1.KubeadmControlPlane{Spec: controlplanev1.KubeadmControlPlaneSpec{Version: "v1.38.0"}}
			if tc.mutate != nil {
				tc.mutate(kcp)
			}
			want, err := desiredClusterConfiguration(kcp)
			require.NoError(t, err)
			cfg := map[string]any{}
			require.NoError(t, yaml.Unmarshal([]byte(tc.have), &cfg))
			require.True(t, setClusterConfiguration(cfg, want))
			expect := map[string]any{}
			require.NoError(t, yaml.Unmarshal([]byte(tc.want), &expect))
			for k, v := range expect {
				require.Equal(t, v, cfg[k], k)
			}
			for _, k := range []string{"featureGates", "encryptionAlgorithm"} {
				if _, ok := expect[k]; !ok {
					require.NotContains(t, cfg, k)
				}
			}
			require.False(t, setClusterConfiguration(cfg, want), "a second pass changes nothing")
		})
	}
}

// A rollout whose kubeadm-config already holds the spec's ClusterConfiguration does not write it.
func TestUpdateClusterConfiguration_NoWriteWhenItHoldsTheSpec(t *testing.T) {
	kcp := &controlplanev1.KubeadmControlPlane{Spec: controlplanev1.KubeadmControlPlaneSpec{Version: testVersion}}
	changeEveryRolledField(kcp)
	out, err := yaml.Marshal(wantRolledConfiguration(testVersion))
	require.NoError(t, err)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: kubeadmConfigMap.Namespace, Name: kubeadmConfigMap.Name},
		Data: map[string]string{clusterConfigurationKey: string(out)}}
	c := fake.NewClientBuilder().WithObjects(cm).Build()
	before := &corev1.ConfigMap{}
	require.NoError(t, c.Get(context.Background(), kubeadmConfigMap, before))
	require.NoError(t, updateClusterConfiguration(context.Background(), c, kcp))
	after := &corev1.ConfigMap{}
	require.NoError(t, c.Get(context.Background(), kubeadmConfigMap, after))
	require.Equal(t, before.ResourceVersion, after.ResourceVersion)
}
