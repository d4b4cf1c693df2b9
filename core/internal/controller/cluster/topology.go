package cluster

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/core/internal/topology/variables"
)

// Until the topology controller exists, the Cluster controller reports on a topology Cluster what
// can already be checked: that its ClusterClass exists and is reconciled, and that the topology's
// variables and worker classes are valid for it (TopologyReconciled False with the field paths).
// When all is valid the condition says that no objects are generated yet.

// classKey is where a topology Cluster's ClusterClass lives: classRef.namespace or the Cluster's.
func classKey(c *clusterv1.Cluster) client.ObjectKey {
	ns := c.Spec.Topology.ClassRef.Namespace
	if ns == "" {
		ns = c.Namespace
	}
	return client.ObjectKey{Namespace: ns, Name: c.Spec.Topology.ClassRef.Name}
}

// clusterClassToClusters requests the topology Clusters using a ClusterClass.
func (r *Reconciler) clusterClassToClusters(ctx context.Context, o client.Object) []reconcile.Request {
	clusters := &clusterv1.ClusterList{}
	if err := r.Client.List(ctx, clusters); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing Clusters to map a ClusterClass event")
		return nil
	}
	var out []reconcile.Request
	for i := range clusters.Items {
		c := &clusters.Items[i]
		if c.Spec.Topology.IsDefined() && classKey(c) == client.ObjectKeyFromObject(o) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(c)})
		}
	}
	return out
}

// reconcileTopology computes the TopologyReconciled condition of a topology Cluster.
func (r *Reconciler) reconcileTopology(ctx context.Context, s *scope) (ctrl.Result, error) {
	c := s.cluster
	if !c.Spec.Topology.IsDefined() {
		return ctrl.Result{}, nil
	}
	key := classKey(c)
	cc := &clusterv1.ClusterClass{}
	if err := r.Client.Get(ctx, key, cc); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("reading ClusterClass %s: %w", key, err)
		}
		s.topology = notReconciled(fmt.Sprintf("ClusterClass %s does not exist: create it, or fix spec.topology.classRef", key))
		return ctrl.Result{}, nil // the ClusterClass watch brings the Cluster back
	}
	ready := conditions.Get(cc, clusterv1.ClusterClassVariablesReadyCondition)
	switch {
	case cc.Status.ObservedGeneration != cc.Generation:
		s.topology = notReconciled(fmt.Sprintf("ClusterClass %s is not reconciled yet (generation %d, observed %d)", key, cc.Generation, cc.Status.ObservedGeneration))
		return ctrl.Result{}, nil
	case ready == nil || ready.Status != metav1.ConditionTrue:
		msg := "unknown"
		if ready != nil {
			msg = ready.Message
		}
		s.topology = notReconciled(fmt.Sprintf("ClusterClass %s has VariablesReady not True (%s): fix the ClusterClass", key, msg))
		return ctrl.Result{}, nil
	}
	defs, err := variables.Definitions(cc.Status.Variables)
	if err != nil {
		s.topology = notReconciled(fmt.Sprintf("ClusterClass %s: %v", key, err))
		return ctrl.Result{}, nil
	}
	if errs := validateTopology(ctx, c, cc, defs); len(errs) > 0 {
		msgs := make([]string, 0, len(errs))
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		s.topology = ptr.To(conditions.False(clusterv1.ClusterTopologyReconciledCondition,
			clusterv1.ClusterTopologyReconciledVariablesInvalidReason, strings.Join(msgs, "; ")))
		return ctrl.Result{}, nil
	}
	s.topology = ptr.To(conditions.False(clusterv1.ClusterTopologyReconciledCondition, clusterv1.ClusterTopologyReconciledNotImplementedReason,
		fmt.Sprintf("The topology is valid for ClusterClass %s, but Capstan has no topology controller yet: no InfraCluster, control plane or workers are generated", key)))
	return ctrl.Result{}, nil
}

func notReconciled(msg string) *metav1.Condition {
	return ptr.To(conditions.False(clusterv1.ClusterTopologyReconciledCondition,
		clusterv1.ClusterTopologyReconciledClusterClassNotReconciledReason, msg))
}

// validateTopology checks the topology against its class as upstream's Cluster webhook does: the
// variables (after defaulting) and overrides match the schemas, and each worker names a class the
// ClusterClass defines.
func validateTopology(ctx context.Context, c *clusterv1.Cluster, cc *clusterv1.ClusterClass, defs map[string]variables.Definition) field.ErrorList {
	t := &c.Spec.Topology
	path := field.NewPath("spec", "topology")
	errs := variables.Validate(ctx, path.Child("variables"), variables.Default(t.Variables, defs), defs)
	errs = append(errs, variables.ValidateOverrides(ctx, path.Child("controlPlane", "variables", "overrides"),
		variables.DefaultOverrides(t.ControlPlane.Variables.Overrides, defs), defs)...)
	mdClasses, mpClasses := map[string]bool{}, map[string]bool{}
	for _, md := range cc.Spec.Workers.MachineDeployments {
		mdClasses[md.Class] = true
	}
	for _, mp := range cc.Spec.Workers.MachinePools {
		mpClasses[mp.Class] = true
	}
	for _, md := range t.Workers.MachineDeployments {
		p := path.Child("workers", "machineDeployments").Key(md.Name)
		if !mdClasses[md.Class] {
			errs = append(errs, field.Invalid(p.Child("class"), md.Class, "ClusterClass "+cc.Name+" has no such MachineDeployment class"))
		}
		errs = append(errs, variables.ValidateOverrides(ctx, p.Child("variables", "overrides"), variables.DefaultOverrides(md.Variables.Overrides, defs), defs)...)
	}
	for _, mp := range t.Workers.MachinePools {
		p := path.Child("workers", "machinePools").Key(mp.Name)
		if !mpClasses[mp.Class] {
			errs = append(errs, field.Invalid(p.Child("class"), mp.Class, "ClusterClass "+cc.Name+" has no such MachinePool class"))
		}
		errs = append(errs, variables.ValidateOverrides(ctx, p.Child("variables", "overrides"), variables.DefaultOverrides(mp.Variables.Overrides, defs), defs)...)
	}
	return errs
}
