package machineset

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/owner"
)

// reconcileNormal brings the MachineSet's Machines in line with its spec.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	// No webhook defaults it: the Cluster finds its MachineSets by this label.
	owner.LabelCluster(s.ms, s.ms.Spec.ClusterName)
	steps := []func(context.Context, *scope) (ctrl.Result, error){
		r.readMachines,
		r.ownTemplates,
		r.repairMissingClones,
		r.syncMachines,
		r.remediateUnhealthyMachines,
		r.syncReplicas,
	}
	var res ctrl.Result
	for _, step := range steps {
		stepRes, err := step(ctx, s)
		if err != nil {
			return ctrl.Result{}, err
		}
		if s.invalidSelector != "" {
			// Nothing is safe to do with Machines it would not count; a spec change brings it back.
			return ctrl.Result{}, nil
		}
		if stepRes.RequeueAfter > 0 && (res.RequeueAfter == 0 || stepRes.RequeueAfter < res.RequeueAfter) {
			res.RequeueAfter = stepRes.RequeueAfter
		}
	}
	return res, nil
}

// readMachines resolves the selector and the owning MachineDeployment, and reads (adopting and
// releasing) the MachineSet's Machines from the cache.
func (r *Reconciler) readMachines(ctx context.Context, s *scope) (ctrl.Result, error) {
	sel, err := selectorFor(s.ms)
	if s.invalidSelector = InvalidSelectorMessage(sel, err, "MachineSet", machineLabels(s.ms)); s.invalidSelector != "" {
		ctrl.LoggerFrom(ctx).Info("Not reconciling Machines: " + s.invalidSelector)
		return ctrl.Result{}, nil
	}
	s.selector = sel
	if s.deployment, err = r.ownerDeployment(ctx, s.ms); err != nil {
		return ctrl.Result{}, err
	}
	machines, err := r.cachedMachines(ctx, s)
	if err != nil {
		return ctrl.Result{}, err
	}
	s.machines, s.machinesRead = machines, true
	return ctrl.Result{}, nil
}

// ownTemplates makes the Cluster an owner of the templates of a MachineSet that no
// MachineDeployment controls, as upstream does, so that they go with the Cluster; a
// MachineDeployment does it for its MachineSets' templates, which are its own.
func (r *Reconciler) ownTemplates(ctx context.Context, s *scope) (ctrl.Result, error) {
	if s.deployment != nil || s.cluster == nil || metav1.GetControllerOf(s.ms) != nil {
		return ctrl.Result{}, nil
	}
	spec := &s.ms.Spec.Template.Spec
	return ctrl.Result{}, external.OwnTemplates(ctx, r.Client, s.cluster, s.ms.Namespace, spec.InfrastructureRef, spec.Bootstrap.ConfigRef)
}

// isCurrentRevision reports whether the MachineSet is its MachineDeployment's current revision:
// only that MachineSet's Machines are up to date, and only it remediates.
func isCurrentRevision(ms *clusterv1.MachineSet, md *clusterv1.MachineDeployment) bool {
	rev := ms.Annotations[clusterv1.RevisionAnnotation]
	return rev != "" && rev == md.Annotations[clusterv1.RevisionAnnotation]
}

// describeMS names a MachineSet in messages.
func describeMS(ms *clusterv1.MachineSet) string {
	return fmt.Sprintf("MachineSet %s/%s", ms.Namespace, ms.Name)
}
