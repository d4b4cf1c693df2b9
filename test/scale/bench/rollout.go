package bench

import (
	"context"
	"fmt"
	"time"

	"k8s.io/utils/ptr"
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
	start := time.Now()
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
	took := time.Since(start)
	if err != nil {
		return time.Time{}, err
	}
	r.logf("Rollout: done in %s; waiting for the core's writes to settle", took.Round(time.Millisecond))
	last, err := r.audit.quietSince(5*time.Second, 2*time.Minute, start, coreUsers...)
	if err != nil {
		return time.Time{}, err
	}
	end := last.Add(time.Millisecond)
	return end, r.reportWrites("3 Rollout", "replaced Machine", want, start, end, took)
}

// rolledOut reports whether every MachineDeployment has exactly its replicas, all of
// them up to date and available, and the namespace has want Machines, all Running.
func (o *observer) rolledOut(ctx context.Context, want, deployments, replicas int) (bool, string, error) {
	mds := &clusterv1.MachineDeploymentList{}
	if err := o.cache.List(ctx, mds); err != nil {
		return false, "", err
	}
	done := 0
	for i := range mds.Items {
		md := &mds.Items[i]
		s := md.Status
		// The cache may not have seen the template change yet: such a MachineDeployment
		// is not rolled out, however settled its status looks.
		if md.Spec.Template.Spec.InfrastructureRef.Name == rolloutTemplate &&
			s.ObservedGeneration == md.Generation && ptr.Deref(s.Replicas, -1) == int32(replicas) &&
			ptr.Deref(s.UpToDateReplicas, -1) == int32(replicas) && ptr.Deref(s.AvailableReplicas, -1) == int32(replicas) &&
			conditions.IsTrue(md, clusterv1.MachineDeploymentAvailableCondition) {
			done++
		}
	}
	machines := &clusterv1.MachineList{}
	if err := o.cache.List(ctx, machines); err != nil {
		return false, "", err
	}
	running := 0
	for i := range machines.Items {
		if machines.Items[i].Status.Phase == string(clusterv1.MachinePhaseRunning) && machines.Items[i].DeletionTimestamp.IsZero() {
			running++
		}
	}
	progress := fmt.Sprintf("%d/%d MachineDeployments rolled out, %d Machines (%d Running, want %d)", done, deployments, len(machines.Items), running, want)
	return done == deployments && len(machines.Items) == want && running == want, progress, nil
}
