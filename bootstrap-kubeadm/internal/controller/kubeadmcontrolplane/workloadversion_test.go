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
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
)

// TestWorkloadVersion_KubeadmConfigThenKubeProxyFollowTheVersion: a version change sets
// kubernetesVersion in the workload cluster's kube-system/kubeadm-config before the first
// Machine of the new version exists (read on every Machine event: kubeadm join builds the new
// node's static Pods from it) and keeps kubeadm's other fields; kube-proxy's image follows, and
// only once no Machine runs the old version (checked on every DaemonSet event).
func TestWorkloadVersion_KubeadmConfigThenKubeProxyFollowTheVersion(t *testing.T) {
	f := availableControlPlane(t, "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n"+
		"kubernetesVersion: v1.37.2\nnetworking:\n  podSubnet: 10.244.0.0/16\n")
	ctx := context.Background()
	ds := kubeProxyDaemonSet("registry.k8s.io/kube-proxy:v1.37.2")
	require.NoError(t, env.Client.Create(ctx, ds))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ds) })

	var mu sync.Mutex
	var configSeen, proxyTooEarly []string
	onEvent(t, &clusterv1.MachineList{}, client.InNamespace(f.ns), func(obj client.Object) {
		if m := obj.(*clusterv1.Machine); m.Spec.Version == "v1.38.0" {
			mu.Lock()
			defer mu.Unlock()
			configSeen = append(configSeen, clusterConfiguration(t)["kubernetesVersion"].(string))
		}
	})
	onEvent(t, &appsv1.DaemonSetList{}, client.InNamespace(metav1.NamespaceSystem), func(obj client.Object) {
		if d := obj.(*appsv1.DaemonSet); d.Name == kubeProxy.Name && d.Spec.Template.Spec.Containers[0].Image != ds.Spec.Template.Spec.Containers[0].Image {
			for _, m := range f.machines() {
				if m.DeletionTimestamp.IsZero() && m.Spec.Version != "v1.38.0" {
					mu.Lock()
					proxyTooEarly = append(proxyTooEarly, m.Name)
					mu.Unlock()
				}
			}
		}
	})

	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Version = "v1.38.0" })
	f.rollUntil(1, "one Machine at v1.38.0", func(m *clusterv1.Machine) bool { return m.Spec.Version == "v1.38.0" })
	envtest.WaitFor(t, timeout, "kube-proxy at v1.38.0", func() (bool, error) {
		cur := &appsv1.DaemonSet{}
		if err := env.Client.Get(ctx, kubeProxy, cur); err != nil {
			return false, err
		}
		return cur.Spec.Template.Spec.Containers[0].Image == "registry.k8s.io/kube-proxy:v1.38.0", nil
	})

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, configSeen)
	for _, v := range configSeen {
		require.Equal(t, "v1.38.0", v, "a Machine at v1.38.0 existed while kubeadm-config said %s", v)
	}
	require.Empty(t, proxyTooEarly, "kube-proxy moved while these Machines ran the old version")
	cfg := clusterConfiguration(t)
	require.Equal(t, "kubeadm.k8s.io/v1beta4", cfg["apiVersion"])
	require.Equal(t, map[string]any{"podSubnet": "10.244.0.0/16"}, cfg["networking"], "kubeadm's other fields are kept")
}

// TestWorkloadVersion_SkipKubeProxyLeavesItAlone: with the skip-kube-proxy annotation a
// kube-proxy at another version than the control plane is left as it is.
func TestWorkloadVersion_SkipKubeProxyLeavesItAlone(t *testing.T) {
	startController(t)
	f := newFixture(t, func(o *fixtureOptions) {
		o.kcp = func(k *controlplanev1.KubeadmControlPlane) {
			k.Annotations = map[string]string{controlplanev1.SkipKubeProxyAnnotation: ""}
		}
	})
	ds := kubeProxyDaemonSet("registry.k8s.io/kube-proxy:v1.36.0")
	require.NoError(t, env.Client.Create(context.Background(), ds))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ds) })
	f.growTo(1)
	f.waitCondition(controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionTrue, "")
	// A reconcile after the skip is in place, then the DaemonSet is as it was.
	f.updateKCP(func(k *controlplanev1.KubeadmControlPlane) { k.Annotations["test.capstan.dev/poke"] = "1" })
	f.waitKCP("a reconcile of the poke", func(*controlplanev1.KubeadmControlPlane) error { return nil })
	cur := &appsv1.DaemonSet{}
	require.NoError(t, env.Client.Get(context.Background(), kubeProxy, cur))
	require.Equal(t, "registry.k8s.io/kube-proxy:v1.36.0", cur.Spec.Template.Spec.Containers[0].Image)
	require.Equal(t, ds.ResourceVersion, cur.ResourceVersion, "not written")
}

func TestKubeProxyImage(t *testing.T) {
	for _, tc := range []struct{ image, version, repo, want string }{
		{"registry.k8s.io/kube-proxy:v1.37.2", "v1.38.0", "", "registry.k8s.io/kube-proxy:v1.38.0"},
		{"registry.k8s.io/kube-proxy:v1.37.2", "v1.38.0+capstan.1", "", "registry.k8s.io/kube-proxy:v1.38.0_capstan.1"},
		{"localhost:5000/kube-proxy@sha256:abc", "v1.38.0", "", "localhost:5000/kube-proxy:v1.38.0"},
		{"localhost:5000/kube-proxy", "v1.38.0", "", "localhost:5000/kube-proxy:v1.38.0"},
		{"registry.k8s.io/kube-proxy:v1.37.2", "v1.38.0", "mirror.example/k8s/", "mirror.example/k8s/kube-proxy:v1.38.0"},
	} {
		require.Equal(t, tc.want, kubeProxyImage(tc.image, tc.version, tc.repo), "%+v", tc)
	}
}

func kubeProxyDaemonSet(image string) *appsv1.DaemonSet {
	labels := map[string]string{"k8s-app": "kube-proxy"}
	return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: kubeProxy.Namespace, Name: kubeProxy.Name},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "kube-proxy", Image: image}}}}}}
}

// availableControlPlane starts the controller and returns a fixture whose one Machine is
// available, with clusterConfiguration as the workload cluster's kubeadm ClusterConfiguration.
func availableControlPlane(t *testing.T, clusterConfiguration string) *fixture {
	startController(t)
	f := newFixture(t)
	f.growTo(1)
	f.waitCondition(controlplanev1.KubeadmControlPlaneAvailableCondition, metav1.ConditionTrue, "")
	cm := &corev1.ConfigMap{}
	require.NoError(t, env.Client.Get(context.Background(), kubeadmConfigMap, cm))
	cm.Data[clusterConfigurationKey] = clusterConfiguration
	require.NoError(t, env.Client.Update(context.Background(), cm))
	return f
}

// clusterConfiguration reads the ClusterConfiguration of the workload cluster's kubeadm-config.
func clusterConfiguration(t *testing.T) map[string]any {
	cm := &corev1.ConfigMap{}
	require.NoError(t, env.Client.Get(context.Background(), kubeadmConfigMap, cm))
	cfg := map[string]any{}
	require.NoError(t, yaml.Unmarshal([]byte(cm.Data[clusterConfigurationKey]), &cfg))
	return cfg
}

// onEvent calls f with the object of every added or modified event of list's kind until the
// test ends.
func onEvent(t *testing.T, list client.ObjectList, opt client.ListOption, f func(client.Object)) {
	w, err := env.Client.Watch(context.Background(), list, opt)
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			if obj, ok := ev.Object.(client.Object); ok && (ev.Type == watch.Added || ev.Type == watch.Modified) {
				f(obj)
			}
		}
	}()
	t.Cleanup(func() { w.Stop(); <-done })
}

// A kubeadm-config that is not what kubeadm writes (missing key, not YAML) is an error naming
// what is wrong, never a panic and never a write.
func TestUpdateClusterConfiguration_RefusesWhatKubeadmDidNotWrite(t *testing.T) {
	kcp := &controlplanev1.KubeadmControlPlane{Spec: controlplanev1.KubeadmControlPlaneSpec{Version: "v1.38.0"}}
	for name, tc := range map[string]struct {
		data map[string]string
		want string
	}{
		"no ClusterConfiguration": {map[string]string{"other": "x"}, "it has no ClusterConfiguration"},
		"not YAML":                {map[string]string{clusterConfigurationKey: "kind: [unclosed"}, "reading its ClusterConfiguration"},
	} {
		t.Run(name, func(t *testing.T) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: kubeadmConfigMap.Namespace, Name: kubeadmConfigMap.Name}, Data: tc.data}
			c := fake.NewClientBuilder().WithObjects(cm).Build()
			err := updateClusterConfiguration(context.Background(), c, kcp)
			require.ErrorContains(t, err, tc.want)
			got := &corev1.ConfigMap{}
			require.NoError(t, c.Get(context.Background(), kubeadmConfigMap, got))
			require.Equal(t, tc.data, got.Data, "nothing written")
		})
	}
}
