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
	"path"
	"strings"

	"github.com/coredns/corefile-migration/migration"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/contracts/image"
	"capstan.dev/contracts/kcprollout"
)

const (
	// coreDNSContainer is the container of the coredns Deployment kubeadm deploys.
	coreDNSContainer = "coredns"
	// corefileKey holds the Corefile in the coredns ConfigMap; corefileBackupKey the Corefile
	// before a migration, which the Deployment mounts while its image changes.
	corefileKey       = "Corefile"
	corefileBackupKey = "Corefile-backup"
	// coreDNSConfigVolume is the Deployment's volume of the coredns ConfigMap.
	coreDNSConfigVolume = "config-volume"
)

// coreDNS is the Deployment and the ConfigMap kubeadm deploys CoreDNS with.
var coreDNS = client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: "coredns"}

// coreDNSUpdate is a move of CoreDNS from one image to another.
type coreDNSUpdate struct {
	from, to image.Reference
	// fromVersion and toVersion are major.minor.patch, as corefile-migration names versions.
	fromVersion, toVersion string
}

// coreDNSTarget is the image CoreDNS should run, from the image it runs: the KubeadmConfigSpec's
// dns.imageTag (else the current tag) under dns.imageRepository, else its imageRepository,
// else the current repository, as upstream's KubeadmControlPlane computes it. The default
// registries keep CoreDNS under coredns/coredns, as kubeadm deploys it there.
func coreDNSTarget(current image.Reference, cc bootstrapv1.ClusterConfiguration) image.Reference {
	repo, name := path.Split(current.Name)
	repo = strings.TrimSuffix(repo, "/")
	for _, r := range []string{cc.ImageRepository, cc.DNS.ImageRepository} {
		if r != "" {
			repo = strings.TrimSuffix(r, "/")
		}
	}
	if (repo == "registry.k8s.io" || repo == "k8s.gcr.io") && name == "coredns" {
		name = "coredns/coredns"
	}
	to := image.Reference{Name: name, Tag: current.Tag}
	if repo != "" {
		to.Name = repo + "/" + name
	}
	if cc.DNS.ImageTag != "" {
		to.Tag = cc.DNS.ImageTag
	}
	return to
}

// planCoreDNSUpdate returns the update from the image current to the one kcp asks for, nil when
// they are the same. An update corefile-migration cannot carry the Corefile through (a
// downgrade, a version it does not know) is a terminal error naming the field to change: only
// a change of the KubeadmControlPlane fixes it.
func planCoreDNSUpdate(current string, kcp *controlplanev1.KubeadmControlPlane) (*coreDNSUpdate, error) {
	from := image.Parse(current)
	to := coreDNSTarget(from, kcp.Spec.KubeadmConfigSpec.ClusterConfiguration)
	if to.String() == from.String() {
		return nil, nil
	}
	const field = "spec.kubeadmConfigSpec.clusterConfiguration.dns.imageTag"
	fromVersion, err := version.ParseGeneric(strings.TrimPrefix(from.Tag, "v"))
	if err != nil {
		return nil, reconcile.TerminalError(fmt.Errorf("CoreDNS runs %s, whose tag is not a CoreDNS version: set %s to upgrade it from a known version (%w)", current, field, err))
	}
	toVersion, err := version.ParseGeneric(strings.TrimPrefix(to.Tag, "v"))
	if err != nil {
		return nil, reconcile.TerminalError(fmt.Errorf("%s %q is not a CoreDNS version (%w)", field, to.Tag, err))
	}
	u := &coreDNSUpdate{from: from, to: to, fromVersion: majorMinorPatch(fromVersion), toVersion: majorMinorPatch(toVersion)}
	if toVersion.LessThan(fromVersion) {
		return nil, reconcile.TerminalError(fmt.Errorf("%s %q would downgrade CoreDNS from %s: CoreDNS is only upgraded; set it to %s or later", field, to.Tag, from.Tag, u.fromVersion))
	}
	if err := migration.ValidUpMigration(u.fromVersion, u.toVersion); err != nil {
		return nil, reconcile.TerminalError(fmt.Errorf("%s %q: the Corefile of CoreDNS %s cannot be migrated to it (%w); versions known: %s",
			field, to.Tag, u.fromVersion, err, strings.Join(migration.ValidVersions(), ", ")))
	}
	return u, nil
}

func majorMinorPatch(v *version.Version) string {
	return fmt.Sprintf("%d.%d.%d", v.Major(), v.Minor(), v.Patch())
}

// reconcileCoreDNS moves CoreDNS in the workload cluster to the image the KubeadmControlPlane
// asks for, as upstream does once its Machines are all up to date and as many as desired (the
// step runs after reconcileReplicas, which stops before it otherwise): nothing set in
// clusterConfiguration.dns leaves CoreDNS as kubeadm deployed it. The annotation
// controlplane.cluster.x-k8s.io/skip-coredns, or a cluster without kubeadm's coredns
// Deployment and ConfigMap, leaves it alone.
func (r *Reconciler) reconcileCoreDNS(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if _, skip := s.kcp.Annotations[controlplanev1.SkipCoreDNSAnnotation]; skip || !initialized(s) {
		return ctrl.Result{}, false, nil
	}
	if !s.machinesRead || plan(s.kcp, s.machines, s.isOutdated) != kcprollout.None {
		return ctrl.Result{}, false, nil // Machines are still being added, replaced or removed
	}
	for _, m := range s.machines { // plan covers the versions: a Machine of another one is outdated
		if deleting(m) {
			return ctrl.Result{}, false, nil
		}
	}
	wc, err := r.Workload.GetClient(ctx, client.ObjectKeyFromObject(s.cluster))
	if err != nil {
		return ctrl.Result{}, false, nil // not connected (the ClusterCache's source brings us back), or the version step's error already
	}
	return ctrl.Result{}, false, updateCoreDNS(ctx, wc, s.kcp)
}

// updateCoreDNS carries out the update planCoreDNSUpdate plans: the Corefile migrated for the new
// version (the old one kept as Corefile-backup and mounted meanwhile, so running Pods never read
// a Corefile of a newer version), kube-system/kubeadm-config's dns, then the Deployment's image
// (mounting the migrated Corefile again). Each write is guarded by the resourceVersion read.
func updateCoreDNS(ctx context.Context, wc client.Client, kcp *controlplanev1.KubeadmControlPlane) error {
	deploy := &appsv1.Deployment{}
	if found, err := getCoreDNSObject(ctx, wc, deploy); !found {
		return err
	}
	container := coreDNSContainerOf(deploy)
	if container == nil {
		return nil
	}
	u, planErr := planCoreDNSUpdate(container.Image, kcp)
	if u == nil && planErr == nil {
		return nil // the steady state: the ConfigMap, read live (never cached), is not read
	}
	cm := &corev1.ConfigMap{}
	if found, err := getCoreDNSObject(ctx, wc, cm); !found {
		return err
	}
	if planErr != nil {
		return planErr
	}
	ctrl.LoggerFrom(ctx).Info("Upgrading CoreDNS in the workload cluster", "from", u.from.String(), "to", u.to.String())
	if err := migrateCorefile(ctx, wc, deploy, cm, u); err != nil {
		return err
	}
	if err := setClusterConfigurationDNS(ctx, wc, kcp.Spec.KubeadmConfigSpec.ClusterConfiguration.DNS); err != nil {
		return fmt.Errorf("setting dns in ConfigMap %s of the workload cluster: %w", kubeadmConfigMap, err)
	}
	base := deploy.DeepCopy()
	coreDNSContainerOf(deploy).Image = u.to.String()
	setCorefileKey(deploy, corefileKey)
	if err := wc.Patch(ctx, deploy, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("updating Deployment %s of the workload cluster: %w", coreDNS, err)
	}
	return nil
}

// getCoreDNSObject reads obj, CoreDNS's Deployment or ConfigMap; found is false when it is
// missing (not kubeadm's CoreDNS: nothing of ours to upgrade) or cannot be read (err says why).
func getCoreDNSObject(ctx context.Context, wc client.Client, obj client.Object) (found bool, _ error) {
	err := wc.Get(ctx, coreDNS, obj)
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("reading %T %s of the workload cluster: %w", obj, coreDNS, err)
	}
	return true, nil
}

// migrateCorefile writes the Corefile migrated from u's version to u's, keeping the old one as
// Corefile-backup for the Pods that still run the old image. After a restart between its
// writes, the backup the Deployment mounts is the Corefile to migrate, not the one already
// migrated.
func migrateCorefile(ctx context.Context, wc client.Client, deploy *appsv1.Deployment, cm *corev1.ConfigMap, u *coreDNSUpdate) error {
	original, ok := cm.Data[corefileKey]
	if backup, has := cm.Data[corefileBackupKey]; has && corefileKeyOf(deploy) == corefileBackupKey {
		original, ok = backup, true
	}
	if !ok {
		return fmt.Errorf("ConfigMap %s of the workload cluster has no %s", coreDNS, corefileKey)
	}
	migrated, err := migration.Migrate(u.fromVersion, u.toVersion, original, false)
	if err != nil {
		return reconcile.TerminalError(fmt.Errorf("migrating the Corefile of ConfigMap %s from CoreDNS %s to %s: %w", coreDNS, u.fromVersion, u.toVersion, err))
	}
	if migrated == cm.Data[corefileKey] {
		return nil
	}
	base := cm.DeepCopy()
	cm.Data[corefileBackupKey] = original
	if err := wc.Patch(ctx, cm, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("backing up the Corefile of ConfigMap %s: %w", coreDNS, err)
	}
	deployBase := deploy.DeepCopy()
	if setCorefileKey(deploy, corefileBackupKey) {
		if err := wc.Patch(ctx, deploy, client.MergeFromWithOptions(deployBase, client.MergeFromWithOptimisticLock{})); err != nil {
			return fmt.Errorf("mounting the Corefile backup in Deployment %s: %w", coreDNS, err)
		}
	}
	base = cm.DeepCopy()
	cm.Data[corefileKey] = migrated
	if err := wc.Patch(ctx, cm, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("writing the migrated Corefile to ConfigMap %s: %w", coreDNS, err)
	}
	return nil
}

func coreDNSContainerOf(d *appsv1.Deployment) *corev1.Container {
	for i := range d.Spec.Template.Spec.Containers {
		if d.Spec.Template.Spec.Containers[i].Name == coreDNSContainer {
			return &d.Spec.Template.Spec.Containers[i]
		}
	}
	return nil
}

// corefileKeyOf is the ConfigMap key the Deployment mounts as its Corefile.
func corefileKeyOf(d *appsv1.Deployment) string {
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == coreDNSConfigVolume && v.ConfigMap != nil {
			for _, item := range v.ConfigMap.Items {
				if item.Path == corefileKey {
					return item.Key
				}
			}
		}
	}
	return ""
}

// setCorefileKey mounts key of the ConfigMap as the Deployment's Corefile; false when it already is.
func setCorefileKey(d *appsv1.Deployment, key string) bool {
	changed := false
	for i := range d.Spec.Template.Spec.Volumes {
		v := &d.Spec.Template.Spec.Volumes[i]
		if v.Name != coreDNSConfigVolume || v.ConfigMap == nil {
			continue
		}
		for j := range v.ConfigMap.Items {
			if item := &v.ConfigMap.Items[j]; item.Path == corefileKey && item.Key != key {
				item.Key, changed = key, true
			}
		}
	}
	return changed
}
