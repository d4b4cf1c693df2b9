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
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/contracts/image"
	"capstan.dev/contracts/remote"
)

// clusterConfigurationKey is the key of kubeadm's ClusterConfiguration in kube-system/kubeadm-config.
const clusterConfigurationKey = "ClusterConfiguration"

// kubeProxy is the DaemonSet kubeadm deploys kube-proxy with.
var kubeProxy = client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: "kube-proxy"}

// reconcileWorkloadVersion keeps what kubeadm and kube-proxy read from the workload cluster in line
// with spec.version, as upstream's KubeadmControlPlane does; these two objects are the only ones
// it writes in the workload cluster:
//   - while a Machine runs another version than spec.version, kube-system/kubeadm-config's
//     ClusterConfiguration gets kubernetesVersion (and imageRepository when the KubeadmControlPlane
//     sets one) before a Machine is added: `kubeadm join --control-plane` builds the joining
//     node's static Pods from it, so a Machine of the new version would otherwise run the old
//     version's images (which its node image may not even hold). Until that write succeeds no
//     Machine is added;
//   - once every Machine runs spec.version, the kube-proxy DaemonSet's image tag follows it,
//     unless the KubeadmControlPlane has the controlplane.cluster.x-k8s.io/skip-kube-proxy
//     annotation (kube-proxy may be one minor behind the control plane, never ahead of it).
//
// CoreDNS follows clusterConfiguration.dns once the Machines are up to date (reconcileCoreDNS).
func (r *Reconciler) reconcileWorkloadVersion(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if !initialized(s) {
		return ctrl.Result{}, false, nil
	}
	versionRollout := false
	for _, m := range s.machines {
		if !deleting(m) && m.Spec.Version != s.kcp.Spec.Version {
			versionRollout = true
		}
	}
	wc, err := r.Workload.GetClient(ctx, client.ObjectKeyFromObject(s.cluster))
	if errors.Is(err, remote.ErrClusterNotConnected) {
		if versionRollout {
			s.scaleUpBlocked = fmt.Sprintf("Waiting for the connection to the workload cluster to set kubernetesVersion %s in ConfigMap %s",
				s.kcp.Spec.Version, kubeadmConfigMap)
		}
		return ctrl.Result{}, versionRollout, nil // the ClusterCache's source brings us back on connect
	}
	if err != nil {
		return ctrl.Result{}, false, err
	}
	if versionRollout {
		if err := updateClusterConfiguration(ctx, wc, s.kcp); err != nil {
			s.scaleUpBlocked = fmt.Sprintf("Setting kubernetesVersion %s in ConfigMap %s of the workload cluster failed: %v",
				s.kcp.Spec.Version, kubeadmConfigMap, err)
			return ctrl.Result{}, true, err
		}
		return ctrl.Result{}, false, nil
	}
	if _, skip := s.kcp.Annotations[controlplanev1.SkipKubeProxyAnnotation]; skip || len(s.machines) == 0 {
		return ctrl.Result{}, false, nil
	}
	return ctrl.Result{}, false, updateKubeProxyImage(ctx, wc, s.kcp)
}

// updateClusterConfiguration sets kubernetesVersion (and imageRepository when kcp sets one) in
// the ClusterConfiguration of kube-system/kubeadm-config, and writes it only when they changed.
func updateClusterConfiguration(ctx context.Context, wc client.Client, kcp *controlplanev1.KubeadmControlPlane) error {
	want := map[string]string{"kubernetesVersion": kcp.Spec.Version}
	if repo := kcp.Spec.KubeadmConfigSpec.ClusterConfiguration.ImageRepository; repo != "" {
		want["imageRepository"] = repo
	}
	changed, err := patchClusterConfiguration(ctx, wc, func(cfg map[string]any) bool { return setStrings(cfg, want) })
	if changed {
		ctrl.LoggerFrom(ctx).Info("Set the workload cluster's kubeadm ClusterConfiguration for the version rollout",
			"ConfigMap", kubeadmConfigMap, "kubernetesVersion", kcp.Spec.Version)
	}
	return err
}

// setClusterConfigurationDNS sets dns.imageRepository and dns.imageTag, those that dns sets, in
// the ClusterConfiguration of kube-system/kubeadm-config, as upstream does when it upgrades CoreDNS.
func setClusterConfigurationDNS(ctx context.Context, wc client.Client, dns bootstrapv1.DNS) error {
	want := map[string]string{}
	for k, v := range map[string]string{"imageRepository": dns.ImageRepository, "imageTag": dns.ImageTag} {
		if v != "" {
			want[k] = v
		}
	}
	_, err := patchClusterConfiguration(ctx, wc, func(cfg map[string]any) bool {
		d, _ := cfg["dns"].(map[string]any)
		if d == nil {
			d = map[string]any{}
		}
		if !setStrings(d, want) {
			return false
		}
		cfg["dns"] = d
		return true
	})
	return err
}

// setStrings sets want's keys in m; false when m held them all already.
func setStrings(m map[string]any, want map[string]string) bool {
	changed := false
	for k, v := range want {
		if m[k] != v {
			m[k], changed = v, true
		}
	}
	return changed
}

// patchClusterConfiguration changes the ClusterConfiguration of kube-system/kubeadm-config with
// change, and writes it only when change says it changed something. The other fields are kept
// as kubeadm wrote them (read as YAML, not through a Go type of one kubeadm API version).
func patchClusterConfiguration(ctx context.Context, wc client.Client, change func(cfg map[string]any) bool) (bool, error) {
	cm := &corev1.ConfigMap{}
	if err := wc.Get(ctx, kubeadmConfigMap, cm); err != nil {
		return false, err
	}
	data, ok := cm.Data[clusterConfigurationKey]
	if !ok {
		return false, fmt.Errorf("it has no %s", clusterConfigurationKey)
	}
	cfg := map[string]any{}
	if err := yaml.Unmarshal([]byte(data), &cfg); err != nil {
		return false, fmt.Errorf("reading its %s: %w", clusterConfigurationKey, err)
	}
	if !change(cfg) {
		return false, nil
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return false, err
	}
	cm.Data[clusterConfigurationKey] = string(out)
	return true, wc.Update(ctx, cm) // guarded by the resourceVersion read: a conflict retries the reconcile
}

// updateKubeProxyImage points the kube-proxy container of the kube-proxy DaemonSet at the image
// tag of kcp's version (with "+" as "_", as image tags cannot hold it), under kcp's
// imageRepository when it sets one; a missing DaemonSet (another proxy, or none) is left alone.
func updateKubeProxyImage(ctx context.Context, wc client.Client, kcp *controlplanev1.KubeadmControlPlane) error {
	ds := &appsv1.DaemonSet{}
	if err := wc.Get(ctx, kubeProxy, ds); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("reading DaemonSet %s of the workload cluster: %w", kubeProxy, err)
	}
	base := ds.DeepCopy()
	changed := false
	for i := range ds.Spec.Template.Spec.Containers {
		c := &ds.Spec.Template.Spec.Containers[i]
		if c.Name != "kube-proxy" {
			continue
		}
		if img := kubeProxyImage(c.Image, kcp.Spec.Version, kcp.Spec.KubeadmConfigSpec.ClusterConfiguration.ImageRepository); img != c.Image {
			c.Image, changed = img, true
		}
	}
	if !changed {
		return nil
	}
	ctrl.LoggerFrom(ctx).Info("Upgrading kube-proxy in the workload cluster", "DaemonSet", kubeProxy, "version", kcp.Spec.Version)
	if err := wc.Patch(ctx, ds, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("updating the image of DaemonSet %s of the workload cluster: %w", kubeProxy, err)
	}
	return nil
}

// kubeProxyImage is ref with its tag set to version and, when repository is set, its
// repository replaced by repository/kube-proxy. A digest is dropped: it names the old image.
func kubeProxyImage(ref, version, repository string) string {
	r := image.Parse(ref)
	if repository != "" {
		r.Name = strings.TrimSuffix(repository, "/") + "/kube-proxy"
	}
	r.Tag, r.Digest = strings.ReplaceAll(version, "+", "_"), ""
	return r.String()
}
