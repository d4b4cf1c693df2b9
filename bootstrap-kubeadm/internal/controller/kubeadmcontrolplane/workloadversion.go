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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/contracts/image"
	"capstan.dev/contracts/remote"
)

// kubeProxy is the DaemonSet kubeadm deploys kube-proxy with.
var kubeProxy = client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: "kube-proxy"}

// reconcileWorkloadVersion keeps what kubeadm and kube-proxy read from the workload cluster in line
// with the KubeadmControlPlane, as upstream's does; with CoreDNS (reconcileCoreDNS) these are the
// only objects it writes in the workload cluster:
//   - while a Machine is outdated (any reason: version, kubeadmConfigSpec, template,
//     rollout.after, certificates), kube-system/kubeadm-config's ClusterConfiguration gets the
//     spec's before a Machine is added (updateClusterConfiguration): `kubeadm join
//     --control-plane` builds the joining node's static Pods from it, so a new Machine would
//     otherwise run the old version and the old flags. Until that write succeeds no Machine is
//     added. The write is idempotent: a restart between it and the scale-up finds nothing to
//     change and goes on;
//   - once no Machine is outdated, the kube-proxy DaemonSet's image tag follows spec.version,
//     unless the KubeadmControlPlane has the controlplane.cluster.x-k8s.io/skip-kube-proxy
//     annotation (kube-proxy may be one minor behind the control plane, never ahead of it).
func (r *Reconciler) reconcileWorkloadVersion(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if !initialized(s) {
		return ctrl.Result{}, false, nil
	}
	rollout := false
	for _, m := range s.machines {
		if !deleting(m) && s.isOutdated(m) {
			rollout = true
		}
	}
	wc, err := r.Workload.GetClient(ctx, client.ObjectKeyFromObject(s.cluster))
	if errors.Is(err, remote.ErrClusterNotConnected) {
		if rollout {
			s.scaleUpBlocked = fmt.Sprintf("Waiting for the connection to the workload cluster to write spec.kubeadmConfigSpec.clusterConfiguration (at version %s) into ConfigMap %s, which joining control plane nodes read",
				s.kcp.Spec.Version, kubeadmConfigMap)
		}
		return ctrl.Result{}, rollout, nil // the ClusterCache's source brings us back on connect
	}
	if err != nil {
		return ctrl.Result{}, false, err
	}
	if rollout {
		if err := updateClusterConfiguration(ctx, wc, s.kcp); err != nil {
			s.scaleUpBlocked = fmt.Sprintf("Writing spec.kubeadmConfigSpec.clusterConfiguration into ConfigMap %s of the workload cluster failed: %v",
				kubeadmConfigMap, err)
			return ctrl.Result{}, true, err
		}
		return ctrl.Result{}, false, nil
	}
	if _, skip := s.kcp.Annotations[controlplanev1.SkipKubeProxyAnnotation]; skip || len(s.machines) == 0 {
		return ctrl.Result{}, false, nil
	}
	return ctrl.Result{}, false, updateKubeProxyImage(ctx, wc, s.kcp)
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
