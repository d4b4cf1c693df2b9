package editplan

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/kcprollout"
)

// kcpSpec is what of a KubeadmControlPlane (as unstructured: its Go types belong to the
// bootstrap-kubeadm module) decides what happens to its Machines.
type kcpSpec struct {
	rollout            kcprollout.Spec
	kubeadmConfigSpec  map[string]any
	replicas, maxSurge int
	stackedEtcd        bool
}

// readKCPSpec reads u's spec with the defaults the KubeadmControlPlane's API and controller
// apply (one replica, maxSurge 1).
func readKCPSpec(u *unstructured.Unstructured) (kcpSpec, error) {
	s := kcpSpec{replicas: 1, maxSurge: 1}
	if n, ok, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); ok {
		s.replicas = int(n)
	}
	if v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "rollout", "strategy", "rollingUpdate", "maxSurge"); ok {
		switch t := v.(type) {
		case int64:
			s.maxSurge = int(t)
		case string:
			v := intstr.Parse(t)
			s.maxSurge = v.IntValue()
		}
	}
	s.rollout.Version, _, _ = unstructured.NestedString(u.Object, "spec", "version")
	if after, ok, _ := unstructured.NestedString(u.Object, "spec", "rollout", "after"); ok && after != "" {
		t, err := time.Parse(time.RFC3339, after)
		if err != nil {
			return s, fmt.Errorf("spec.rollout.after %q: %w", after, err)
		}
		s.rollout.RolloutAfter = metav1.NewTime(t)
	}
	days, _, _ := unstructured.NestedInt64(u.Object, "spec", "rollout", "before", "certificatesExpiryDays")
	s.rollout.CertificatesExpiryDays = int32(days)
	ref, _, _ := unstructured.NestedStringMap(u.Object, "spec", "machineTemplate", "spec", "infrastructureRef")
	s.rollout.InfrastructureRef = clusterv1.ContractVersionedObjectReference{APIGroup: ref["apiGroup"], Kind: ref["kind"], Name: ref["name"]}
	s.kubeadmConfigSpec, _, _ = unstructured.NestedMap(u.Object, "spec", "kubeadmConfigSpec")
	_, external, _ := unstructured.NestedMap(u.Object, "spec", "kubeadmConfigSpec", "clusterConfiguration", "etcd", "external")
	s.stackedEtcd = !external
	return s, nil
}

// planKubeadmControlPlane dry-runs the edit of a KubeadmControlPlane and simulates, with the
// controller's own decisions (contracts/kcprollout), how it moves its Machines to the edited
// spec: which are outdated and why, the order they are replaced or removed in, one Machine at a
// time within maxSurge, and the etcd members and quorum after each step.
func planKubeadmControlPlane(ctx context.Context, c client.Client, d Document, now time.Time) (*ObjectPlan, error) {
	current, edited := &unstructured.Unstructured{}, &unstructured.Unstructured{}
	current.SetGroupVersionKind(d.Object.GroupVersionKind())
	found, err := dryRunUpdate(ctx, c, d, current, edited)
	if err != nil {
		return nil, err
	}
	p := &ObjectPlan{Source: d.Source, Kind: d.Object.GetKind(), Object: objectName(d.Object)}
	if !found {
		p.Outcome = Create
		p.Notes = []string{"not found: `kubectl apply` creates it; no existing Machine is replaced"}
		return p, nil
	}
	oldSpec, err := readKCPSpec(current)
	if err == nil {
		var newSpec kcpSpec
		if newSpec, err = readKCPSpec(edited); err == nil {
			err = planKCPMachines(ctx, c, p, current, oldSpec, newSpec, now)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Source, err)
	}
	p.InPlace = kcpInPlaceChanges(current, edited)
	p.Outcome = outcome(p)
	return p, nil
}

// planKCPMachines reads the control plane's Machines, decides which the edit leaves outdated and
// simulates the rollout into p.
func planKCPMachines(ctx context.Context, c client.Client, p *ObjectPlan, kcp *unstructured.Unstructured, oldSpec, newSpec kcpSpec, now time.Time) error {
	machines, err := controlPlaneMachines(ctx, c, kcp)
	if err != nil {
		return err
	}
	domains, err := controlPlaneDomains(ctx, c, kcp, machines)
	if err != nil {
		return err
	}
	sim := &kcpSim{desired: newSpec.replicas, maxSurge: newSpec.maxSurge, stacked: newSpec.stackedEtcd, domains: domains, outdated: map[string]string{}}
	upToDateNow := allUpToDate(kcp)
	for _, m := range machines {
		if !m.DeletionTimestamp.IsZero() {
			p.Notes = append(p.Notes, fmt.Sprintf("Machine %s is being deleted: the control plane waits for it to go before any step below", m.Name))
			continue
		}
		why, err := outdatedUnderEdit(ctx, c, m, oldSpec, newSpec, upToDateNow, now)
		if err != nil {
			return err
		}
		if why != "" {
			sim.outdated[m.Name] = why
			p.Notes = append(p.Notes, fmt.Sprintf("Machine %s is outdated: %s", m.Name, why))
		}
		sim.machines = append(sim.machines, m)
	}
	p.Strategy = fmt.Sprintf("RollingUpdate (maxSurge %d) of %d replicas, one Machine at a time", newSpec.maxSurge, newSpec.replicas)
	if newSpec.stackedEtcd {
		p.Strategy += ", each running an etcd member"
		p.Notes = append(p.Notes, etcdHealthNotes(machines)...)
	}
	today := len(sim.machines)
	r := sim.run(now)
	p.Steps, p.Replaced, p.Removed = r.steps, r.replaced, r.removed
	p.Added = max(0, r.created-len(r.replaced))
	p.Notes = append(p.Notes, sim.quorumNotes(today, r.steps)...)
	if r.stuck {
		p.Notes = append(p.Notes, "the simulation did not reach the spec within its bound: check the plan's input")
	}
	return nil
}

// outdatedUnderEdit says why Machine m would be outdated under the edited spec, empty when it
// would be up to date. Version, spec.rollout.after, certificates and infrastructure template are
// judged on the edited spec alone. The KubeadmConfig is compared path by path: a path the edit
// changes in the Machine's part (init or join) outdates it unless the Machine already has the
// edited value; a path the edit leaves alone keeps the Machine's state of today, which the
// controller reports (upToDateNow: every Machine up to date), since a stored KubeadmConfig and a
// stored KubeadmControlPlane may spell the same value differently (an explicit empty list).
func outdatedUnderEdit(ctx context.Context, c client.Client, m *clusterv1.Machine, oldSpec, newSpec kcpSpec, upToDateNow bool, now time.Time) (string, error) {
	config, err := readPart(ctx, c, m.Spec.Bootstrap.ConfigRef, m.Namespace)
	if err != nil {
		return "", err
	}
	infra, err := readPart(ctx, c, m.Spec.InfrastructureRef, m.Namespace)
	if err != nil {
		return "", err
	}
	var configAnnotations map[string]string
	if config != nil {
		configAnnotations = config.GetAnnotations()
	}
	if why := kcprollout.MachineReason(newSpec.rollout, m, configAnnotations, infra, now); why != "" {
		return why, nil
	}
	if config == nil || config.GetKind() != "KubeadmConfig" {
		return "", nil
	}
	have, _, _ := unstructured.NestedMap(config.Object, "spec")
	init := kcprollout.IsInitConfig(have)
	newWant := kcprollout.RoleConfig(newSpec.kubeadmConfigSpec, init)
	edited := kcprollout.ConfigDiff(newWant, kcprollout.RoleConfig(oldSpec.kubeadmConfigSpec, init))
	var paths []string
	for _, path := range kcprollout.ConfigDiff(newWant, have) {
		if !upToDateNow || overlaps(path, edited) {
			paths = append(paths, path)
		}
	}
	return kcprollout.ConfigDiffMessage(config.GetName(), paths), nil
}

// overlaps reports whether path is one of paths, or above or below one of them.
func overlaps(path string, paths []string) bool {
	for _, p := range paths {
		if p == path || strings.HasPrefix(p, path+".") || strings.HasPrefix(path, p+".") {
			return true
		}
	}
	return false
}

// readPart reads a Machine's bootstrap config or InfraMachine; nil when unset or gone (the
// controller judges neither then).
func readPart(ctx context.Context, c client.Client, ref clusterv1.ContractVersionedObjectReference, namespace string) (*unstructured.Unstructured, error) {
	if !ref.IsDefined() {
		return nil, nil
	}
	u, _, err := external.Get(ctx, c, ref, namespace)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s %s/%s: %w", ref.Kind, namespace, ref.Name, err)
	}
	return u, nil
}

// allUpToDate reports whether the controller says every Machine of kcp is up to date now.
func allUpToDate(kcp *unstructured.Unstructured) bool {
	if c, err := conditions.UnstructuredGet(kcp, clusterv1.MachinesUpToDateCondition); err == nil && c != nil {
		return c.Status == metav1.ConditionTrue
	}
	replicas, ok1, _ := unstructured.NestedInt64(kcp.Object, "status", "replicas")
	upToDate, ok2, _ := unstructured.NestedInt64(kcp.Object, "status", "upToDateReplicas")
	return ok1 && ok2 && replicas == upToDate
}

// controlPlaneMachines lists the Machines kcp controls, by name.
func controlPlaneMachines(ctx context.Context, c client.Client, kcp *unstructured.Unstructured) ([]*clusterv1.Machine, error) {
	list := &clusterv1.MachineList{}
	if err := c.List(ctx, list, client.InNamespace(kcp.GetNamespace()),
		client.MatchingLabels{clusterv1.MachineControlPlaneNameLabel: kcp.GetName()}); err != nil {
		return nil, fmt.Errorf("listing the Machines of %s %s: %w", kcp.GetKind(), objectName(kcp), err)
	}
	var out []*clusterv1.Machine
	for i := range list.Items {
		if metav1.IsControlledBy(&list.Items[i], kcp) {
			out = append(out, &list.Items[i])
		}
	}
	return out, nil
}

// controlPlaneDomains are the control plane failure domains of kcp's Cluster (found through its
// Machines or its owner reference); none when the Cluster cannot be named.
func controlPlaneDomains(ctx context.Context, c client.Client, kcp *unstructured.Unstructured, machines []*clusterv1.Machine) ([]string, error) {
	name := kcp.GetLabels()[clusterv1.ClusterNameLabel]
	for _, ref := range kcp.GetOwnerReferences() {
		if ref.Kind == "Cluster" && name == "" {
			name = ref.Name
		}
	}
	if name == "" && len(machines) > 0 {
		name = machines[0].Spec.ClusterName
	}
	if name == "" {
		return nil, nil
	}
	cluster := &clusterv1.Cluster{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: kcp.GetNamespace(), Name: name}, cluster); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	return kcprollout.ControlPlaneFailureDomains(cluster), nil
}

// kcpInPlaceChanges names what the edit changes under spec.machineTemplate that the controller
// syncs to the Machines in place (metadata, deletion timeouts, readiness gates, taints): all of
// it but the infrastructure template.
func kcpInPlaceChanges(current, edited *unstructured.Unstructured) []string {
	a, _, _ := unstructured.NestedMap(current.Object, "spec", "machineTemplate")
	b, _, _ := unstructured.NestedMap(edited.Object, "spec", "machineTemplate")
	var out []string
	for _, path := range kcprollout.DiffPaths(a, b) {
		if path != "spec.infrastructureRef" && !strings.HasPrefix(path, "spec.infrastructureRef.") {
			out = append(out, "spec.machineTemplate."+path)
		}
	}
	return out
}
