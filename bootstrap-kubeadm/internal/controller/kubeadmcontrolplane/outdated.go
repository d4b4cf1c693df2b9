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
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/external"
)

// machineParts are the objects a Machine was created with, read to tell whether it still matches
// the KubeadmControlPlane and to bring their metadata in line. Either is nil when it does not exist
// (yet, or any more): as upstream, what cannot be read never makes a Machine outdated, so a cache
// that lags or an API server that misbehaves never starts a rollout.
type machineParts struct {
	config *bootstrapv1.KubeadmConfig
	infra  *unstructured.Unstructured
}

// readMachineParts reads, from the cache, the KubeadmConfig and the InfraMachine of each Machine
// that is not being deleted, into s.parts by Machine name.
func (r *Reconciler) readMachineParts(ctx context.Context, s *scope) error {
	s.parts = make(map[string]machineParts, len(s.machines))
	var errs []error
	for _, m := range s.machines {
		if deleting(m) {
			continue
		}
		var p machineParts
		if ref := m.Spec.Bootstrap.ConfigRef; ref.Kind == "KubeadmConfig" && ref.APIGroup == bootstrapv1.GroupVersion.Group {
			cfg := &bootstrapv1.KubeadmConfig{}
			err := r.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: ref.Name}, cfg)
			switch {
			case err == nil:
				p.config = cfg
			case !apierrors.IsNotFound(err):
				errs = append(errs, fmt.Errorf("reading KubeadmConfig %s of Machine %s: %w", ref.Name, m.Name, err))
			}
		}
		if m.Spec.InfrastructureRef.IsDefined() {
			infra, _, err := external.Get(ctx, r.Client, m.Spec.InfrastructureRef, m.Namespace)
			switch {
			case err == nil:
				p.infra = infra
			case !apierrors.IsNotFound(err):
				errs = append(errs, fmt.Errorf("reading the InfraMachine of Machine %s: %w", m.Name, err))
			}
		}
		s.parts[m.Name] = p
	}
	if len(errs) > 0 {
		// Without every part, up-to-date counts would flip for a Machine that was merely not
		// read: the replica status keeps its last value instead.
		s.machinesRead = false
	}
	return errors.Join(errs...)
}

// outdated says why m must be replaced (see outdatedReason); empty when it is up to date.
func (s *scope) outdated(m *clusterv1.Machine) string {
	return outdatedReason(s.kcp, m, s.parts[m.Name], metav1.NewTime(s.now))
}

// isOutdated is outdated as a predicate, for plan and the choice of the Machine to remove.
func (s *scope) isOutdated(m *clusterv1.Machine) bool { return s.outdated(m) != "" }

// outdatedReason says why m must be replaced, naming what differs: its version, spec.rollout.after,
// certificates about to expire, the template its InfraMachine was cloned from, or its KubeadmConfig.
// Empty when m is up to date. Metadata and deletion timeouts are not looked at: they are synced in
// place (metadata.go), as upstream does.
func outdatedReason(kcp *controlplanev1.KubeadmControlPlane, m *clusterv1.Machine, p machineParts, now metav1.Time) string {
	if m.Spec.Version != kcp.Spec.Version {
		return fmt.Sprintf("version %s, want %s", m.Spec.Version, kcp.Spec.Version)
	}
	if after := kcp.Spec.Rollout.After; !after.IsZero() && !now.Before(&after) && m.CreationTimestamp.Before(&after) {
		return fmt.Sprintf("created before spec.rollout.after %s", after.UTC().Format("2006-01-02T15:04:05Z"))
	}
	if why := certificatesExpiring(kcp, m, p.config, now.Time); why != "" {
		return why
	}
	if why := infraTemplateDiffers(kcp, p.infra); why != "" {
		return why
	}
	return kubeadmConfigDiffers(kcp, p.config)
}

// infraTemplateDiffers compares the cloned-from annotations of the InfraMachine with
// spec.machineTemplate.spec.infrastructureRef. An InfraMachine without them (adopted, or made by
// hand) is not judged, as upstream.
func infraTemplateDiffers(kcp *controlplanev1.KubeadmControlPlane, infra *unstructured.Unstructured) string {
	if infra == nil {
		return ""
	}
	name, ok1 := infra.GetAnnotations()[clusterv1.TemplateClonedFromNameAnnotation]
	groupKind, ok2 := infra.GetAnnotations()[clusterv1.TemplateClonedFromGroupKindAnnotation]
	if !ok1 || !ok2 {
		return ""
	}
	ref := kcp.Spec.MachineTemplate.Spec.InfrastructureRef
	wantGroupKind := schema.GroupKind{Group: ref.APIGroup, Kind: ref.Kind}.String()
	if name == ref.Name && groupKind == wantGroupKind {
		return ""
	}
	return fmt.Sprintf("%s %s was cloned from %s %s, spec.machineTemplate.spec.infrastructureRef is %s %s",
		infra.GetKind(), infra.GetName(), groupKind, name, wantGroupKind, ref.Name)
}

// maxDiffPaths bounds the fields an outdated reason lists.
const maxDiffPaths = 3

// kubeadmConfigDiffers compares the Machine's KubeadmConfig with the one the KubeadmControlPlane
// would create for it now, and names the fields of spec.kubeadmConfigSpec that differ.
func kubeadmConfigDiffers(kcp *controlplanev1.KubeadmControlPlane, cfg *bootstrapv1.KubeadmConfig) string {
	if cfg == nil {
		return ""
	}
	paths := kubeadmConfigDiff(kubeadmConfigSpec(kcp, isInitConfig(cfg)), cfg.Spec)
	if len(paths) == 0 {
		return ""
	}
	shown := paths[:min(len(paths), maxDiffPaths)]
	for i := range shown {
		shown[i] = "spec.kubeadmConfigSpec." + shown[i]
	}
	more := ""
	if len(paths) > maxDiffPaths {
		more = fmt.Sprintf(" and %d more", len(paths)-maxDiffPaths)
	}
	return fmt.Sprintf("KubeadmConfig %s differs in %s%s", cfg.Name, strings.Join(shown, ", "), more)
}

// isInitConfig tells the KubeadmConfig of the Machine that ran kubeadm init: the controller gives
// every joining control plane Machine a joinConfiguration.controlPlane (kubeadmConfigSpec).
func isInitConfig(cfg *bootstrapv1.KubeadmConfig) bool {
	return cfg.Spec.JoinConfiguration.ControlPlane == nil
}

// kubeadmConfigDiff lists the JSON paths (below the spec) where have differs from want, sorted,
// after taking away what is not part of the Machine's configuration: the join discovery, which the
// bootstrap controller fills in (token, CA hashes) and which only matters while joining, as upstream
// ignores it; and what differs only by defaulting (an empty object is unset; format unset is
// cloud-config). Since kubeadmConfigSpec drops initConfiguration from a join and joinConfiguration
// from an init, each Machine is compared on the part kubeadm applied to it only.
func kubeadmConfigDiff(want, have bootstrapv1.KubeadmConfigSpec) []string {
	var out []string
	diffJSON("", normalizedConfig(want), normalizedConfig(have), &out)
	slices.Sort(out)
	return out
}

// normalizedConfig is spec as a JSON tree without the fields kubeadmConfigDiff ignores.
func normalizedConfig(spec bootstrapv1.KubeadmConfigSpec) any {
	spec = *spec.DeepCopy()
	spec.JoinConfiguration.Discovery = bootstrapv1.Discovery{}
	if spec.Format == "" {
		spec.Format = bootstrapv1.CloudConfig
	}
	raw, _ := json.Marshal(spec) // plain data types: marshalling cannot fail
	var tree any
	_ = json.Unmarshal(raw, &tree)
	return pruneEmpty(tree)
}

// pruneEmpty drops empty objects from a JSON tree, so that an unset struct and an empty one
// compare equal; it returns nil for an empty object. Empty strings and lists are kept: the API
// types omit them when unset, so an empty one was written on purpose and can mean something
// (nodeRegistration.taints: [] is "no taints", unset is kubeadm's default taint).
func pruneEmpty(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if p := pruneEmpty(e); p == nil {
				delete(t, k)
			} else {
				t[k] = p
			}
		}
		if len(t) == 0 {
			return nil
		}
	case []any:
		for i := range t {
			t[i] = pruneEmpty(t[i])
		}
	}
	return v
}

// diffJSON appends to out the paths under which want and have differ: objects are compared key by
// key (an absent object as an empty one, so the path names the field set inside it), anything else
// (lists included: their order matters to kubeadm) as a whole.
func diffJSON(path string, want, have any, out *[]string) {
	wm, ok1 := want.(map[string]any)
	hm, ok2 := have.(map[string]any)
	if ok1 && have == nil {
		hm, ok2 = map[string]any{}, true
	}
	if ok2 && want == nil {
		wm, ok1 = map[string]any{}, true
	}
	if !ok1 || !ok2 {
		if !reflect.DeepEqual(want, have) {
			*out = append(*out, path)
		}
		return
	}
	keys := map[string]bool{}
	for k := range wm {
		keys[k] = true
	}
	for k := range hm {
		keys[k] = true
	}
	for k := range keys {
		sub := k
		if path != "" {
			sub = path + "." + k
		}
		diffJSON(sub, wm[k], hm[k], out)
	}
}
