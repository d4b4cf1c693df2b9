package clusterresourceset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/predicates"
	"capstan.dev/contracts/remote"
)

// reconcileNormal reads the resources, then applies what is due to each matching Cluster. A
// resource that cannot be used (missing, wrong type, invalid) is reported and skipped, the
// others are still applied; a watch brings the reconcile back when it changes.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) error {
	s.evaluated = true
	if err := r.readResources(ctx, s); err != nil {
		return err
	}
	clusters, err := r.matchingClusters(ctx, s.crs)
	if err != nil {
		s.reportError(err)
		return err
	}
	var errs []error
	for _, c := range clusters {
		log := ctrl.LoggerFrom(ctx).WithValues("Cluster", c.Name)
		if err := r.applyToCluster(ctrl.LoggerInto(ctx, log), s, c); err != nil {
			errs = append(errs, fmt.Errorf("Cluster %s: %w", c.Name, err))
		}
	}
	return kerrors.NewAggregate(errs)
}

// matchingClusters lists the Clusters of the ClusterResourceSet's namespace its selector matches
// and that are not being deleted, sorted by name. An empty selector matches nothing (admission
// refuses one; this guards objects stored before that rule).
func (r *Reconciler) matchingClusters(ctx context.Context, crs *addonsv1.ClusterResourceSet) ([]*clusterv1.Cluster, error) {
	selector, err := metav1.LabelSelectorAsSelector(crs.Spec.ClusterSelector.ToMetav1())
	if err != nil {
		return nil, fmt.Errorf("spec.clusterSelector: %w", err)
	}
	if selector.Empty() {
		return nil, nil
	}
	list := &clusterv1.ClusterList{}
	if err := r.Client.List(ctx, list, client.InNamespace(crs.Namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return nil, fmt.Errorf("listing the Clusters of namespace %s: %w", crs.Namespace, err)
	}
	var out []*clusterv1.Cluster
	for i := range list.Items {
		if list.Items[i].DeletionTimestamp.IsZero() {
			out = append(out, &list.Items[i])
		}
	}
	slices.SortFunc(out, func(a, b *clusterv1.Cluster) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// applyToCluster applies the resources due on one Cluster and records the outcome in its
// binding. Waiting (paused, control plane not initialized, not connected) is no error: a watch
// on the Cluster or on its connection brings the reconcile back.
func (r *Reconciler) applyToCluster(ctx context.Context, s *scope, cluster *clusterv1.Cluster) error {
	if predicates.IsPaused(cluster, cluster) {
		s.pausedClusters = append(s.pausedClusters, cluster.Name)
		return nil
	}
	if !ptr.Deref(cluster.Status.Initialization.ControlPlaneInitialized, false) {
		s.report(addonsv1.ClusterResourceSetResourcesNotAppliedReason,
			fmt.Sprintf("Waiting for the control plane of Cluster %s to be initialized", cluster.Name))
		return nil
	}
	b, err := r.readBinding(ctx, cluster)
	if err != nil {
		s.reportError(err)
		return err
	}
	i := b.entry(s.crs.Name)
	var due []resource
	for _, res := range s.resources {
		if res.manifests != nil && needsApply(s.crs.Spec.Strategy, b.obj.Spec.Bindings[i], res) {
			due = append(due, res)
		}
	}
	if len(due) == 0 {
		return nil
	}
	workload, err := r.Workload.GetClient(ctx, client.ObjectKeyFromObject(cluster))
	if errors.Is(err, remote.ErrClusterNotConnected) {
		s.report(addonsv1.ClusterResourceSetResourcesNotAppliedReason, fmt.Sprintf(
			"Waiting for the connection to the workload cluster of Cluster %s (see its RemoteConnectionProbe condition)", cluster.Name))
		return nil
	}
	if err != nil {
		s.report(addonsv1.ClusterResourceSetResourcesNotAppliedReason, fmt.Sprintf("Cluster %s: %v", cluster.Name, err))
		return err
	}
	var errs []error
	var outcome applyOutcome
	prev := *b.obj.Spec.Bindings[i].DeepCopy()
	now := metav1.Now()
	for _, res := range due {
		ctrl.LoggerFrom(ctx).Info("Applying resource to the workload cluster", "kind", res.ref.Kind, "name", res.ref.Name,
			"objects", len(res.manifests.objects))
		err := applyObjects(ctx, workload, s.crs.Spec.Strategy, fieldManager(s.crs.Name), res.manifests.objects)
		b.record(i, addonsv1.ResourceBinding{ResourceRef: res.ref, Hash: res.manifests.hash, Applied: ptr.To(err == nil), LastAppliedTime: now})
		outcome.add(res, prev, err)
		if err != nil {
			s.report(addonsv1.ClusterResourceSetResourcesNotAppliedReason,
				fmt.Sprintf("%s %s could not be applied to Cluster %s: %v", res.ref.Kind, res.ref.Name, cluster.Name, err))
			errs = append(errs, err)
		}
	}
	if err := r.saveBinding(ctx, b, s.crs); err != nil {
		s.reportError(err)
		errs = append(errs, err)
	} else {
		// Only once the binding says so: an apply whose record was lost is done again.
		r.recordApply(s.crs, cluster, outcome)
	}
	return kerrors.NewAggregate(errs)
}

// needsApply says whether res is due on a Cluster whose binding entry is entry: ApplyOnce until
// it was applied once, Reconcile also when its hash changed since.
func needsApply(strategy string, entry addonsv1.ResourceSetBinding, res resource) bool {
	for _, rb := range entry.Resources {
		if rb.ResourceRef != res.ref {
			continue
		}
		if !ptr.Deref(rb.Applied, false) {
			return true
		}
		return strategy == string(addonsv1.ClusterResourceSetStrategyReconcile) && rb.Hash != res.manifests.hash
	}
	return true
}
