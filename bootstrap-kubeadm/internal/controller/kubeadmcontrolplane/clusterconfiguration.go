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
	"encoding/json"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/kubeadm"
)

// clusterConfigurationKey is the key of kubeadm's ClusterConfiguration in kube-system/kubeadm-config.
const clusterConfigurationKey = "ClusterConfiguration"

// The top-level fields of kubeadm's ClusterConfiguration that follow the KubeadmControlPlane during
// a rollout, as upstream's KubeadmControlPlane mutators set them. The component sections are
// replaced whole (a flag removed from the spec goes from the ConfigMap too); networking,
// clusterName and controlPlaneEndpoint come from the Cluster and stay as kubeadm init wrote them;
// dns follows CoreDNS's own upgrade (reconcileCoreDNS).
var (
	// replacedSections are set to the spec's, empty when the spec sets nothing (as kubeadm
	// writes an unset component: "apiServer: {}").
	replacedSections = []string{"apiServer", "controllerManager", "scheduler"}
	// replacedValues are set to the spec's, removed when the spec sets nothing (kubeadm then
	// applies its default on the joining node).
	replacedValues = []string{"kubernetesVersion", "featureGates", "certificateValidityPeriod", "encryptionAlgorithm"}
)

// updateClusterConfiguration writes the KubeadmControlPlane's ClusterConfiguration (the fields
// above, at spec.version) into kube-system/kubeadm-config of the workload cluster, and only when
// that changes it. `kubeadm join --control-plane` builds the joining node's static Pods from
// this ConfigMap, not from the KubeadmConfig: a rollout that did not write it first would
// replace every Machine with one running the old configuration.
func updateClusterConfiguration(ctx context.Context, wc client.Client, kcp *controlplanev1.KubeadmControlPlane) error {
	want, err := desiredClusterConfiguration(kcp)
	if err != nil {
		return err
	}
	changed, err := patchClusterConfiguration(ctx, wc, func(cfg map[string]any) bool { return setClusterConfiguration(cfg, want) })
	if changed && err == nil {
		ctrl.LoggerFrom(ctx).Info("Wrote the KubeadmControlPlane's ClusterConfiguration into the workload cluster for the rollout",
			"ConfigMap", kubeadmConfigMap, "kubernetesVersion", kcp.Spec.Version)
	}
	return err
}

// desiredClusterConfiguration is the KubeadmControlPlane's ClusterConfiguration as the kubeadm
// document the bootstrap provider renders for an init (kubeadm.k8s.io/v1beta4), as a YAML tree.
func desiredClusterConfiguration(kcp *controlplanev1.KubeadmControlPlane) (map[string]any, error) {
	doc := kubeadm.NewClusterConfiguration(kcp.Spec.KubeadmConfigSpec.ClusterConfiguration, kubeadm.Cluster{KubernetesVersion: kcp.Spec.Version})
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("rendering spec.kubeadmConfigSpec.clusterConfiguration: %w", err)
	}
	tree := map[string]any{}
	if err := yaml.Unmarshal(raw, &tree); err != nil { // the same number types as the ConfigMap's tree
		return nil, fmt.Errorf("rendering spec.kubeadmConfigSpec.clusterConfiguration: %w", err)
	}
	return tree, nil
}

// setClusterConfiguration sets in cfg, the ConfigMap's ClusterConfiguration, the fields of want
// that follow the KubeadmControlPlane; false when cfg held them all already. imageRepository is
// set only when the spec sets one (kubeadm's default is kept otherwise, as upstream); etcd
// follows the spec's kind: an external cluster replaces etcd, a local member replaces
// etcd.local (the API refuses switching between them).
func setClusterConfiguration(cfg, want map[string]any) bool {
	changed := false
	set := func(m map[string]any, key string, v any, ok bool) {
		old, had := m[key]
		switch {
		case !ok && had:
			delete(m, key)
			changed = true
		case ok && (!had || !reflect.DeepEqual(old, v)):
			m[key] = v
			changed = true
		}
	}
	for _, k := range replacedSections {
		v, ok := want[k]
		if !ok {
			v = map[string]any{}
		}
		set(cfg, k, v, true)
	}
	for _, k := range replacedValues {
		v, ok := want[k]
		set(cfg, k, v, ok)
	}
	if v, ok := want["imageRepository"]; ok {
		set(cfg, "imageRepository", v, true)
	}
	wantEtcd, _ := want["etcd"].(map[string]any)
	if ext, ok := wantEtcd["external"]; ok {
		set(cfg, "etcd", map[string]any{"external": ext}, true)
		return changed
	}
	etcd, ok := cfg["etcd"].(map[string]any)
	if !ok {
		etcd = map[string]any{}
	}
	local, ok := wantEtcd["local"]
	if !ok {
		local = map[string]any{}
	}
	set(etcd, "local", local, true)
	delete(etcd, "external") // never set beside a local member (the API refuses both)
	cfg["etcd"] = etcd
	return changed
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
