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
	"maps"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/kcprollout"
)

// selectorFor selects the control plane Machines of kcp: the control-plane label and the
// control-plane-name label. It is what status.selector (the scale subresource) reports.
func selectorFor(kcp *controlplanev1.KubeadmControlPlane) labels.Selector {
	cp, _ := labels.NewRequirement(clusterv1.MachineControlPlaneLabel, selection.Exists, nil)
	name, _ := labels.NewRequirement(clusterv1.MachineControlPlaneNameLabel, selection.Equals, []string{kcp.Name})
	return labels.NewSelector().Add(*cp, *name)
}

// readMachines lists, through reader, the Machines kcp controls, sorted by name.
func (r *Reconciler) readMachines(ctx context.Context, s *scope, reader client.Reader) error {
	list := &clusterv1.MachineList{}
	if err := reader.List(ctx, list, client.InNamespace(s.kcp.Namespace), client.MatchingLabelsSelector{Selector: selectorFor(s.kcp)}); err != nil {
		return fmt.Errorf("listing the Machines of KubeadmControlPlane %s: %w", s.kcp.Name, err)
	}
	var out []*clusterv1.Machine
	for i := range list.Items {
		if metav1.IsControlledBy(&list.Items[i], s.kcp) {
			out = append(out, &list.Items[i])
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	s.machines, s.machinesRead = out, true
	return nil
}

// deleting reports whether m is being deleted.
func deleting(m *clusterv1.Machine) bool { return !m.DeletionTimestamp.IsZero() }

// hasNode reports whether m's Node has joined the workload cluster.
func hasNode(m *clusterv1.Machine) bool { return m.Status.NodeRef.Name != "" }

// createMachine creates one control plane Machine: the InfraMachine cloned from the template,
// then its KubeadmConfig (init for the first Machine, control plane join for the others), then the
// Machine referencing both. The clones are named like the Machine and owned (not controlled) by
// the KubeadmControlPlane until the core's Machine controller takes them over; if a later step
// fails, the clones made so far are deleted, so a failed attempt leaves nothing behind.
func (r *Reconciler) createMachine(ctx context.Context, s *scope, failureDomain string, init bool) (*clusterv1.Machine, error) {
	kcp, c := s.kcp, s.cluster
	tmpl := &kcp.Spec.MachineTemplate
	name, err := machineName(kcp, c.Name)
	if err != nil {
		return nil, err
	}
	log := ctrl.LoggerFrom(ctx).WithValues("Machine", klog.KRef(kcp.Namespace, name))
	machineLabels := map[string]string{}
	for k, v := range tmpl.ObjectMeta.Labels {
		machineLabels[k] = v
	}
	machineLabels[clusterv1.ClusterNameLabel] = c.Name
	machineLabels[clusterv1.MachineControlPlaneLabel] = ""
	machineLabels[clusterv1.MachineControlPlaneNameLabel] = kcp.Name
	owner := metav1.OwnerReference{
		APIVersion: controlplanev1.GroupVersion.String(), Kind: "KubeadmControlPlane", Name: kcp.Name, UID: kcp.UID,
	}
	// Each object records the template keys it got, so that syncMachines may remove them later.
	cloneAnnotations := maps.Clone(tmpl.ObjectMeta.Annotations)
	if cloneAnnotations == nil {
		cloneAnnotations = map[string]string{}
	}
	cloneAnnotations[templateMetadataAnnotation] = recordFor(tmpl.ObjectMeta)
	machineAnnotations := maps.Clone(cloneAnnotations)
	// The core's Machine controller waits on it after drain: the etcd member goes then (preterminate.go).
	machineAnnotations[controlplanev1.PreTerminateHookCleanupAnnotation] = ""
	remediation, hasRemediation := kcp.Annotations[controlplanev1.RemediationInProgressAnnotation]
	if hasRemediation { // this Machine replaces a remediated one: it carries the count on
		machineAnnotations[controlplanev1.RemediationForAnnotation] = remediation
	}

	var clones []client.Object
	cleanup := func(cause error) error {
		errs := []error{cause}
		for _, o := range slices.Backward(clones) {
			log.Info("Deleting an object created for a Machine that could not be created", "object", klog.KObj(o))
			if err := r.Client.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("deleting %s: %w", o.GetName(), err))
			}
		}
		return errors.Join(errs...)
	}

	ref := tmpl.Spec.InfrastructureRef
	log.Info("Creating InfraMachine from template", "template", klog.KRef(kcp.Namespace, ref.Name), "templateKind", ref.Kind)
	infra, err := external.CloneTemplate(ctx, r.Client, external.CloneInput{
		Template: ref, Namespace: kcp.Namespace, Name: name, ClusterName: c.Name,
		Labels: machineLabels, Annotations: cloneAnnotations, Owner: &owner,
	})
	if err != nil {
		return nil, fmt.Errorf("creating the InfraMachine for Machine %s from %s %s: %w", name, ref.Kind, ref.Name, err)
	}
	clones = append(clones, infra)

	cfg := &bootstrapv1.KubeadmConfig{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: kcp.Namespace, Labels: machineLabels, Annotations: cloneAnnotations,
			OwnerReferences: []metav1.OwnerReference{owner},
		},
		Spec: kubeadmConfigSpec(kcp, init),
	}
	log.Info("Creating KubeadmConfig", "KubeadmConfig", klog.KObj(cfg), "init", init)
	if err := r.Client.Create(ctx, cfg); err != nil {
		return nil, cleanup(fmt.Errorf("creating KubeadmConfig %s: %w", name, err))
	}
	clones = append(clones, cfg)

	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: kcp.Namespace, Labels: machineLabels, Annotations: machineAnnotations,
			OwnerReferences: []metav1.OwnerReference{controllerRef(kcp)},
		},
		Spec: clusterv1.MachineSpec{
			ClusterName:   c.Name,
			Version:       kcp.Spec.Version,
			FailureDomain: failureDomain,
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: bootstrapv1.GroupVersion.Group, Kind: "KubeadmConfig", Name: name,
			}},
			InfrastructureRef: external.RefTo(infra),
			ReadinessGates:    machineReadinessGates(kcp),
			Taints:            slices.Clone(tmpl.Spec.Taints),
			Deletion: clusterv1.MachineDeletionSpec{
				NodeDrainTimeoutSeconds:        tmpl.Spec.Deletion.NodeDrainTimeoutSeconds,
				NodeVolumeDetachTimeoutSeconds: tmpl.Spec.Deletion.NodeVolumeDetachTimeoutSeconds,
				NodeDeletionTimeoutSeconds:     tmpl.Spec.Deletion.NodeDeletionTimeoutSeconds,
			},
		},
	}
	log.Info("Creating Machine", "failureDomain", failureDomain)
	if err := r.Client.Create(ctx, m); err != nil {
		return nil, cleanup(fmt.Errorf("creating Machine %s: %w", name, err))
	}
	if hasRemediation {
		delete(kcp.Annotations, controlplanev1.RemediationInProgressAnnotation) // written by the deferred patch
	}
	return m, nil
}

// kubeadmConfigSpec is the KubeadmConfig of a new Machine: spec.kubeadmConfigSpec with only the
// part its role needs (kcprollout.RoleConfig, which capstanctl plan compares with too).
func kubeadmConfigSpec(kcp *controlplanev1.KubeadmControlPlane, init bool) bootstrapv1.KubeadmConfigSpec {
	raw, _ := json.Marshal(kcprollout.RoleConfig(jsonTree(kcp.Spec.KubeadmConfigSpec), init)) // a JSON tree: cannot fail
	var spec bootstrapv1.KubeadmConfigSpec
	_ = json.Unmarshal(raw, &spec) // the tree came from this type
	return spec
}

// machineNames lists Machine names for messages: "Machine a", "Machines a, b, c", or the first
// three and a count of the rest.
func machineNames(machines []*clusterv1.Machine) string {
	names := make([]string, 0, len(machines))
	for _, m := range machines {
		names = append(names, m.Name)
	}
	if len(names) == 1 {
		return "Machine " + names[0]
	}
	return "Machines " + listNames(names)
}

// listNames sorts names and lists them for a message: all of them up to three, else the first
// three and a count of the rest.
func listNames(names []string) string {
	sort.Strings(names)
	const shown = 3
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}

// machineReadinessGates are the readiness gates of a control plane Machine, as upstream's
// KubeadmControlPlane sets them: the health conditions this controller writes on each Machine
// (machineHealthConditions: its kube-apiserver, kube-controller-manager and kube-scheduler Pods,
// and with stacked etcd its etcd Pod and member), then spec.machineTemplate.spec.readinessGates
// not already listed. So a control plane Machine is Ready only while its components are healthy.
func machineReadinessGates(kcp *controlplanev1.KubeadmControlPlane) []clusterv1.MachineReadinessGate {
	types := machineHealthConditions(etcdManaged(kcp))
	gates := make([]clusterv1.MachineReadinessGate, 0, len(types)+len(kcp.Spec.MachineTemplate.Spec.ReadinessGates))
	for _, t := range types {
		gates = append(gates, clusterv1.MachineReadinessGate{ConditionType: t})
	}
	for _, g := range kcp.Spec.MachineTemplate.Spec.ReadinessGates {
		if !slices.Contains(types, g.ConditionType) {
			gates = append(gates, g)
		}
	}
	return gates
}
