package bench

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/testing/crds"
)

// rolloutTemplate is the InfraMachineTemplate every MachineDeployment moves to in
// scenario 3.
const rolloutTemplate = benchCluster + "-v2"

// rollout is scenario 3: with scenario 2's Machines converged, every
// MachineDeployment's template is changed at once (a new InfraMachineTemplate, as an
// upgrade does); the time until every MachineDeployment has replaced all its Machines
// and is Available again, and the core's writes per replaced Machine. It returns when
// the core's last write of the scenario happened.
func (r *run) rollout(ctx context.Context) (time.Time, error) {
	ns := machinesNamespace
	obs, err := r.observe(ctx, ns)
	if err != nil {
		return time.Time{}, err
	}
	tmpl := newGeneric(crds.GenericInfrastructureMachineTemplateGVK)
	tmpl.SetNamespace(ns)
	tmpl.SetName(rolloutTemplate)
	tmpl.Object["spec"] = map[string]any{"template": map[string]any{"spec": map[string]any{}}}
	if err := r.plane.harness.Create(ctx, tmpl); err != nil {
		return time.Time{}, fmt.Errorf("creating %s: %w", rolloutTemplate, err)
	}
	want := r.cfg.MachineDeployments * r.cfg.Replicas
	r.logf("Rollout: moving %d MachineDeployments to InfraMachineTemplate %s", r.cfg.MachineDeployments, rolloutTemplate)
	start, probeStart := time.Now(), r.probe(ctx)
	defer r.profileCPU(ctx, "rollout")()
	_, err = forEach(ctx, r.cfg.MachineDeployments, 16, func(ctx context.Context, i int) error {
		md := machineDeployment(ns, i, r.cfg.Replicas)
		base := md.DeepCopy()
		md.Spec.Template.Spec.InfrastructureRef.Name = rolloutTemplate
		return r.plane.harness.Patch(ctx, md, client.MergeFrom(base))
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("changing the MachineDeployments' template: %w", err)
	}
	err = r.waitFor(ctx, "every MachineDeployment rolled out and Available", func() (bool, string, error) {
		return obs.rolledOut(ctx, want, r.cfg.MachineDeployments, r.cfg.Replicas)
	})
	took, probeEnd := time.Since(start), r.probe(ctx)
	if err != nil {
		return time.Time{}, err
	}
	r.logf("Rollout: done in %s; waiting for the core's writes to settle", took.Round(time.Millisecond))
	last, err := r.audit.quietSince(5*time.Second, 2*time.Minute, start, coreUsers...)
	if err != nil {
		return time.Time{}, err
	}
	end := last.Add(time.Millisecond)
	scenario := r.cfg.title(ScenarioRollout)
	core, err := r.reportWrites(scenario, "replaced Machine", want, start, end, took, false)
	if err != nil {
		return time.Time{}, err
	}
	r.timedOutcome(ScenarioRollout, "replaced Machine", want, took, core, probeStart, probeEnd)
	r.reportProbes(scenario, probeStart, probeEnd)
	return end, nil
}

// rolledOut reports whether the namespace has exactly want Machines, all Running and all
// controlled by a MachineSet of the new template, and every MachineDeployment is Available.
// A MachineDeployment's status alone cannot say it: right after the template change it
// still counts the old Machines as up to date.
func (o *observer) rolledOut(ctx context.Context, want, deployments, _ int) (bool, string, error) {
	sets := &clusterv1.MachineSetList{}
	if err := o.cache.List(ctx, sets, client.UnsafeDisableDeepCopy); err != nil {
		return false, "", err
	}
	newSets := map[types.UID]bool{}
	for i := range sets.Items {
		if sets.Items[i].Spec.Template.Spec.InfrastructureRef.Name == rolloutTemplate {
			newSets[sets.Items[i].UID] = true
		}
	}
	machines := &clusterv1.MachineList{}
	if err := o.cache.List(ctx, machines, client.UnsafeDisableDeepCopy); err != nil {
		return false, "", err
	}
	replaced := 0
	for i := range machines.Items {
		m := &machines.Items[i]
		ref := metav1.GetControllerOf(m)
		if ref != nil && newSets[ref.UID] && m.DeletionTimestamp.IsZero() && m.Status.Phase == string(clusterv1.MachinePhaseRunning) {
			replaced++
		}
	}
	mds := &clusterv1.MachineDeploymentList{}
	if err := o.cache.List(ctx, mds, client.UnsafeDisableDeepCopy); err != nil {
		return false, "", err
	}
	available := 0
	for i := range mds.Items {
		if conditions.IsTrue(&mds.Items[i], clusterv1.MachineDeploymentAvailableCondition) {
			available++
		}
	}
	progress := fmt.Sprintf("%d/%d Machines replaced and Running, %d Machines in all, %d/%d MachineDeployments Available",
		replaced, want, len(machines.Items), available, deployments)
	return replaced == want && len(machines.Items) == want && available == deployments, progress, nil
}
