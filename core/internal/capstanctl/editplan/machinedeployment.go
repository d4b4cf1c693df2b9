package editplan

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/controller/machineset"
	"capstan.dev/core/internal/mdrollout"
)

// planMachineDeployment dry-runs the edit of a MachineDeployment and plans, with the
// controller's functions, what its MachineSets do next: which one is current for the edited
// template (an existing one, or a new one when the template hash or a passed spec.rollout.after
// asks for a rollout) and how the strategy moves the Machines to it.
func planMachineDeployment(ctx context.Context, c client.Client, d Document, now time.Time) (*ObjectPlan, error) {
	current, edited := &clusterv1.MachineDeployment{}, &clusterv1.MachineDeployment{}
	found, err := dryRunUpdate(ctx, c, d, current, edited)
	if err != nil {
		return nil, err
	}
	p := &ObjectPlan{Source: d.Source, Kind: "MachineDeployment", Object: objectName(d.Object)}
	if !found {
		p.Outcome = Create
		p.Notes = []string{"not found: `kubectl apply` creates it; no existing Machine is replaced"}
		return p, nil
	}
	sets, machines, err := readMachineSets(ctx, c, current)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Source, err)
	}
	p.InPlace = inPlaceChanges(&current.Spec.Template, &edited.Spec.Template)
	if current.Spec.Deletion.Order != edited.Spec.Deletion.Order {
		p.InPlace = append(p.InPlace, "spec.deletion.order")
	}

	hash := mdrollout.TemplateHash(&edited.Spec.Template)
	var targetMS *clusterv1.MachineSet
	for _, ms := range sets { // oldest revision first: the last current one wins, as in the controller
		if ms.DeletionTimestamp.IsZero() && mdrollout.IsCurrent(edited, ms, hash, now) {
			targetMS = ms
		}
	}
	target := &simSet{}
	var old []*simSet
	for _, ms := range sets {
		if s := newSimSet(ms, machines[ms.UID], edited.Spec.Deletion.Order); ms == targetMS {
			target = s
		} else {
			old = append(old, s)
		}
	}
	if targetMS == nil {
		p.Notes = append(p.Notes, rolloutReason(current, edited, now))
	}
	desired := machineset.DesiredReplicas(edited.Spec.Replicas, edited.Annotations)
	r, err := planStrategy(p, edited, desired, target, old)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Source, err)
	}
	p.Steps, p.Replaced, p.Removed = r.steps, r.replaced, r.removed
	p.Added = max(0, r.created-len(r.replaced))
	p.Outcome = outcome(p)
	return p, nil
}

// planStrategy simulates the edited MachineDeployment's strategy from the MachineSets as they are.
func planStrategy(p *ObjectPlan, md *clusterv1.MachineDeployment, desired int32, target *simSet, old []*simSet) (rollout, error) {
	if ptr.Deref(md.Spec.Paused, false) {
		p.Notes = append(p.Notes, "spec.paused is true: only replicas change until it is resumed; then the rollout below happens")
	}
	if md.Spec.Rollout.Strategy.Type == clusterv1.OnDeleteMachineDeploymentStrategyType {
		p.Strategy = string(clusterv1.OnDeleteMachineDeploymentStrategyType)
		states := make([]mdrollout.MachineSetState, len(old))
		for i, o := range old {
			states[i] = o.state()
		}
		replaced := oldMachines(old)
		newReplicas, oldReplicas := mdrollout.PlanOnDelete(desired, states)
		r := scaleOnce(newReplicas, oldReplicas, target, old)
		if len(replaced) > 0 {
			p.Notes = append(p.Notes, "the OnDelete strategy replaces nothing until you delete Machines: each old Machine you delete is replaced by one of the new template")
			r.replaced = replaced
			r.created += len(replaced)
		}
		return r, nil
	}
	maxSurge, maxUnavailable, err := mdrollout.RollingUpdateLimits(desired, md.Spec.Rollout.Strategy.RollingUpdate)
	if err != nil {
		return rollout{}, err
	}
	p.Strategy = fmt.Sprintf("%s (maxSurge %d, maxUnavailable %d, of %d replicas)", clusterv1.RollingUpdateMachineDeploymentStrategyType, maxSurge, maxUnavailable, desired)
	r := simulateRollingUpdate(desired, maxSurge, maxUnavailable, target, old)
	if r.stuck {
		p.Notes = append(p.Notes, fmt.Sprintf("the rollout stops with old Machines left (%s): the strategy's limits let the controller remove no more of them",
			strings.Join(oldMachines(old), ", ")))
	}
	return r, nil
}

func outcome(p *ObjectPlan) Outcome {
	switch {
	case len(p.Replaced) > 0:
		return Replace
	case p.Added > 0 || len(p.Removed) > 0:
		return Scale
	default:
		return InPlace
	}
}

// rolloutReason says why no existing MachineSet has the edited template.
func rolloutReason(current, edited *clusterv1.MachineDeployment, now time.Time) string {
	if mdrollout.TemplateHash(&current.Spec.Template) != mdrollout.TemplateHash(&edited.Spec.Template) {
		return "the Machine template's rollout fields (version, bootstrap, infrastructureRef, failureDomain, clusterName) change: a new MachineSet replaces the Machines"
	}
	if mdrollout.RolloutAfter(edited, now) != nil {
		return "spec.rollout.after has passed: a new MachineSet replaces the Machines created before it"
	}
	return "no MachineSet of the MachineDeployment has its template yet: a new MachineSet is created"
}

// inPlaceChanges names the template fields the MachineDeployment changes in place (its
// syncInPlace), that differ between a and b.
func inPlaceChanges(a, b *clusterv1.MachineTemplateSpec) []string {
	var out []string
	for _, f := range []struct {
		name string
		a, b any
	}{
		{"spec.template.metadata.labels", a.Labels, b.Labels},
		{"spec.template.metadata.annotations", a.Annotations, b.Annotations},
		{"spec.template.spec.minReadySeconds", a.Spec.MinReadySeconds, b.Spec.MinReadySeconds},
		{"spec.template.spec.readinessGates", a.Spec.ReadinessGates, b.Spec.ReadinessGates},
		{"spec.template.spec.deletion", a.Spec.Deletion, b.Spec.Deletion},
		{"spec.template.spec.taints", a.Spec.Taints, b.Spec.Taints},
	} {
		if !equality.Semantic.DeepEqual(f.a, f.b) {
			out = append(out, f.name)
		}
	}
	return out
}

// readMachineSets returns the MachineSets md controls, oldest revision first, and their
// Machines by MachineSet UID.
func readMachineSets(ctx context.Context, c client.Client, md *clusterv1.MachineDeployment) ([]*clusterv1.MachineSet, map[types.UID][]*clusterv1.Machine, error) {
	list := &clusterv1.MachineSetList{}
	if err := c.List(ctx, list, client.InNamespace(md.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: md.Spec.ClusterName}); err != nil {
		return nil, nil, fmt.Errorf("listing the MachineSets of MachineDeployment %s/%s: %w", md.Namespace, md.Name, err)
	}
	var sets []*clusterv1.MachineSet
	for i := range list.Items {
		if ref := metav1.GetControllerOf(&list.Items[i]); ref != nil && ref.UID == md.UID {
			sets = append(sets, &list.Items[i])
		}
	}
	mdrollout.SortByRevision(sets)
	machines, err := machinesByController(ctx, c, md.Namespace, md.Spec.ClusterName)
	return sets, machines, err
}

// machinesByController lists the Machines of a Cluster by the UID of their controller.
func machinesByController(ctx context.Context, c client.Client, namespace, cluster string) (map[types.UID][]*clusterv1.Machine, error) {
	list := &clusterv1.MachineList{}
	if err := c.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: cluster}); err != nil {
		return nil, fmt.Errorf("listing the Machines of Cluster %s/%s: %w", namespace, cluster, err)
	}
	out := map[types.UID][]*clusterv1.Machine{}
	for i := range list.Items {
		if ref := metav1.GetControllerOf(&list.Items[i]); ref != nil {
			out[ref.UID] = append(out[ref.UID], &list.Items[i])
		}
	}
	return out, nil
}
