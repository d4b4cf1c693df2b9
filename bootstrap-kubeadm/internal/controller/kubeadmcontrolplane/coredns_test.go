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
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/image"
)

// kubeadmCorefile is the Corefile kubeadm v1.37 deploys.
const kubeadmCorefile = `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30
    loop
    reload
    loadbalance
}
`

func TestCoreDNSTarget(t *testing.T) {
	current := image.Parse("registry.k8s.io/coredns/coredns:v1.14.2")
	for name, tc := range map[string]struct {
		dns  bootstrapv1.DNS
		repo string
		want string
	}{
		"NothingSet":               {want: "registry.k8s.io/coredns/coredns:v1.14.2"},
		"Tag":                      {dns: bootstrapv1.DNS{ImageTag: "v1.14.6"}, want: "registry.k8s.io/coredns/coredns:v1.14.6"},
		"DefaultRegistryAsRepo":    {repo: "registry.k8s.io/", want: "registry.k8s.io/coredns/coredns:v1.14.2"},
		"ClusterRepository":        {repo: "mirror.example/k8s", want: "mirror.example/k8s/coredns:v1.14.2"},
		"DNSRepositoryWins":        {repo: "mirror.example/k8s", dns: bootstrapv1.DNS{ImageRepository: "dns.example", ImageTag: "1.14.6"}, want: "dns.example/coredns:1.14.6"},
		"LegacyRegistryIsRenamed":  {dns: bootstrapv1.DNS{ImageRepository: "k8s.gcr.io"}, want: "k8s.gcr.io/coredns/coredns:v1.14.2"},
		"TagOnAMirroredImageStays": {repo: "", dns: bootstrapv1.DNS{ImageTag: "v1.14.3"}, want: "registry.k8s.io/coredns/coredns:v1.14.3"},
	} {
		t.Run(name, func(t *testing.T) {
			cc := bootstrapv1.ClusterConfiguration{ImageRepository: tc.repo, DNS: tc.dns}
			require.Equal(t, tc.want, coreDNSTarget(current, cc).String())
		})
	}
}

// TestPlanCoreDNSUpdate_RefusesWhatTheCorefileCannotFollow: a downgrade or a version
// corefile-migration does not know is a terminal error naming the field; the same image plans
// nothing.
func TestPlanCoreDNSUpdate_RefusesWhatTheCorefileCannotFollow(t *testing.T) {
	kcp := func(tag string) *controlplanev1.KubeadmControlPlane {
		k := &controlplanev1.KubeadmControlPlane{}
		k.Spec.KubeadmConfigSpec.ClusterConfiguration.DNS.ImageTag = tag
		return k
	}
	const current = "registry.k8s.io/coredns/coredns:v1.14.2"
	u, err := planCoreDNSUpdate(current, kcp(""))
	require.NoError(t, err)
	require.Nil(t, u)
	u, err = planCoreDNSUpdate(current, kcp("v1.14.2"))
	require.NoError(t, err)
	require.Nil(t, u)

	u, err = planCoreDNSUpdate(current, kcp("v1.14.6"))
	require.NoError(t, err)
	require.Equal(t, "1.14.2", u.fromVersion)
	require.Equal(t, "1.14.6", u.toVersion)

	for tag, want := range map[string]string{
		"v1.11.1": `spec.kubeadmConfigSpec.clusterConfiguration.dns.imageTag "v1.11.1" would downgrade CoreDNS from v1.14.2: CoreDNS is only upgraded; set it to 1.14.2 or later`,
		"v9.0.0":  `spec.kubeadmConfigSpec.clusterConfiguration.dns.imageTag "v9.0.0": the Corefile of CoreDNS 1.14.2 cannot be migrated to it (cannot migrate up to '9.0.0' from '1.14.2'); versions known: `,
		"latest":  `spec.kubeadmConfigSpec.clusterConfiguration.dns.imageTag "latest" is not a CoreDNS version`,
	} {
		_, err := planCoreDNSUpdate(current, kcp(tag))
		require.ErrorContains(t, err, want, tag)
		require.True(t, errors.Is(err, reconcile.TerminalError(nil)), "only a change of the KubeadmControlPlane fixes %s", tag)
	}
}

func coreDNSObjects(img string) (*appsv1.Deployment, *corev1.ConfigMap) {
	labels := map[string]string{"k8s-app": "kube-dns"}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: coreDNS.Namespace, Name: coreDNS.Name},
			Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: coreDNSContainer, Image: img}},
					Volumes: []corev1.Volume{{Name: coreDNSConfigVolume, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
						LocalObjectReference: corev1.LocalObjectReference{Name: coreDNS.Name},
						Items:                []corev1.KeyToPath{{Key: corefileKey, Path: corefileKey}},
					}}}},
				}}}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: coreDNS.Namespace, Name: coreDNS.Name},
			Data: map[string]string{corefileKey: kubeadmCorefile}}
}

// TestCoreDNS_FollowsDNSImageTagOnceEveryMachineRunsTheVersion: a minor upgrade that also
// raises dns.imageTag moves CoreDNS only once no Machine runs the old version (checked on every
// Deployment event), with the Corefile migrated (the old one kept as Corefile-backup) and
// kubeadm-config's dns set, as upstream's KubeadmControlPlane upgrades it.
func TestCoreDNS_FollowsDNSImageTagOnceEveryMachineRunsTheVersion(t *testing.T) {
	f := availableControlPlane(t, "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.37.2\n")
	ctx := context.Background()
	deploy, corefile := coreDNSObjects("registry.k8s.io/coredns/coredns:v1.14.2")
	for _, obj := range []client.Object{corefile, deploy} {
		require.NoError(t, env.Client.Create(ctx, obj))
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), obj) })
	}

	var mu sync.Mutex
	var tooEarly []string
	onEvent(t, &appsv1.DeploymentList{}, client.InNamespace(metav1.NamespaceSystem), func(obj client.Object) {
		d := obj.(*appsv1.Deployment)
		if d.Name != coreDNS.Name || d.Spec.Template.Spec.Containers[0].Image == deploy.Spec.Template.Spec.Containers[0].Image {
			return
		}
		for _, m := range f.machines() {
			if m.DeletionTimestamp.IsZero() && m.Spec.Version != "v1.38.0" {
				mu.Lock()
				tooEarly = append(tooEarly, m.Name)
				mu.Unlock()
			}
		}
	})

	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) {
		k.Spec.Version = "v1.38.0"
		k.Spec.KubeadmConfigSpec.ClusterConfiguration.DNS.ImageTag = "v1.14.6"
	})
	f.rollUntil(1, "one Machine at v1.38.0", func(m *clusterv1.Machine) bool { return m.Spec.Version == "v1.38.0" })
	cur := &appsv1.Deployment{}
	envtest.WaitFor(t, timeout, "CoreDNS at v1.14.6", func() (bool, error) {
		if err := env.Client.Get(ctx, coreDNS, cur); err != nil {
			return false, err
		}
		return coreDNSContainerOf(cur).Image == "registry.k8s.io/coredns/coredns:v1.14.6", nil
	})
	require.Equal(t, corefileKey, corefileKeyOf(cur), "the migrated Corefile is mounted again")
	got := &corev1.ConfigMap{}
	require.NoError(t, env.Client.Get(ctx, coreDNS, got))
	require.Equal(t, kubeadmCorefile, got.Data[corefileBackupKey])
	require.Contains(t, got.Data[corefileKey], "forward . /etc/resolv.conf")
	require.Equal(t, map[string]any{"imageTag": "v1.14.6"}, clusterConfiguration(t)["dns"])
	mu.Lock()
	defer mu.Unlock()
	require.Empty(t, tooEarly, "CoreDNS moved while these Machines ran the old version")
}

// TestUpdateCoreDNS_AfterARestartBetweenItsWritesMigratesTheBackup: killed after the migrated
// Corefile was written and before the Deployment changed, the next reconcile migrates the
// backup the Deployment still mounts (the original), not the migrated Corefile, and finishes.
func TestUpdateCoreDNS_AfterARestartBetweenItsWritesMigratesTheBackup(t *testing.T) {
	ctx := context.Background()
	deploy, cm := coreDNSObjects("registry.k8s.io/coredns/coredns:v1.14.2")
	setCorefileKey(deploy, corefileBackupKey)
	migrated := "# written before the restart\n" + kubeadmCorefile
	cm.Data = map[string]string{corefileKey: migrated, corefileBackupKey: kubeadmCorefile}
	kubeadmCM := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: kubeadmConfigMap.Namespace, Name: kubeadmConfigMap.Name},
		Data: map[string]string{clusterConfigurationKey: "kind: ClusterConfiguration\n"}}
	wc := fake.NewClientBuilder().WithObjects(deploy, cm, kubeadmCM).Build()
	kcp := &controlplanev1.KubeadmControlPlane{}
	kcp.Spec.KubeadmConfigSpec.ClusterConfiguration.DNS.ImageTag = "v1.14.6"

	require.NoError(t, updateCoreDNS(ctx, wc, kcp))
	got, gotCM := &appsv1.Deployment{}, &corev1.ConfigMap{}
	require.NoError(t, wc.Get(ctx, coreDNS, got))
	require.NoError(t, wc.Get(ctx, coreDNS, gotCM))
	require.Equal(t, "registry.k8s.io/coredns/coredns:v1.14.6", coreDNSContainerOf(got).Image)
	require.Equal(t, corefileKey, corefileKeyOf(got))
	require.Equal(t, kubeadmCorefile, gotCM.Data[corefileBackupKey])
	require.NotContains(t, gotCM.Data[corefileKey], "# written before the restart", "the original was migrated, not the Corefile already written")

	// Once done, another reconcile writes nothing.
	before := gotCM.ResourceVersion + "/" + got.ResourceVersion
	require.NoError(t, updateCoreDNS(ctx, wc, kcp))
	require.NoError(t, wc.Get(ctx, coreDNS, got))
	require.NoError(t, wc.Get(ctx, coreDNS, gotCM))
	require.Equal(t, before, gotCM.ResourceVersion+"/"+got.ResourceVersion)
}
