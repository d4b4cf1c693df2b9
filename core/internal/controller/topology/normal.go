package topology

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/contract"
	"capstan.dev/core/internal/topology/desired"
	"capstan.dev/core/internal/topology/patches"
	"capstan.dev/core/internal/topology/variables"
)

func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	if err := r.readClass(ctx, s); err != nil || s.blocked != nil {
		return ctrl.Result{}, err
	}
	if err := r.readTemplates(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	cpContract, err := r.readCurrent(ctx, s)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.planUpgrade(ctx, s, cpContract); err != nil || s.blocked != nil {
		return ctrl.Result{}, err
	}
	withDefaults := defaultedCluster(s)
	state, err := desired.Compute(&desired.Input{
		Cluster: withDefaults, Class: s.class, Templates: s.templates, Current: s.current.names,
		ControlPlaneContract: cpContract, Random: r.Random, Versions: s.versions(),
		Patch: func(t *desired.Templates, n *desired.Names, v desired.Versions) error {
			return patches.Apply(withDefaults, s.class, t, n, v)
		},
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.applyState(ctx, s, state, cpContract); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.deleteRemovedMachineDeployments(ctx, s, state); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.deleteUnusedTemplates(ctx, s, state); err != nil {
		return ctrl.Result{}, err
	}
	s.applied = true
	return ctrl.Result{}, nil
}

// readClass reads the Cluster's ClusterClass and checks the topology against it; a class that is
// missing or not reconciled, or a topology it refuses, blocks the reconcile with a reason.
func (r *Reconciler) readClass(ctx context.Context, s *scope) error {
	c := s.cluster
	key := classKey(c)
	cc := &clusterv1.ClusterClass{}
	if err := r.Client.Get(ctx, key, cc); err != nil {
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading ClusterClass %s: %w", key, err)
		}
		s.blocked = classNotReconciled(fmt.Sprintf("ClusterClass %s does not exist: create it, or fix spec.topology.classRef", key))
		return nil // the ClusterClass watch brings the Cluster back
	}
	ready := conditions.Get(cc, clusterv1.ClusterClassVariablesReadyCondition)
	switch {
	case cc.Status.ObservedGeneration != cc.Generation:
		s.blocked = classNotReconciled(fmt.Sprintf("ClusterClass %s is not reconciled yet (generation %d, observed %d)", key, cc.Generation, cc.Status.ObservedGeneration))
		return nil
	case ready == nil || ready.Status != metav1.ConditionTrue:
		msg := "unknown"
		if ready != nil {
			msg = ready.Message
		}
		s.blocked = classNotReconciled(fmt.Sprintf("ClusterClass %s has VariablesReady not True (%s): fix the ClusterClass", key, msg))
		return nil
	}
	defs, err := variables.Definitions(cc.Status.Variables)
	if err != nil {
		s.blocked = classNotReconciled(fmt.Sprintf("ClusterClass %s: %v", key, err))
		return nil
	}
	if errs := validateTopology(ctx, c, cc, defs); len(errs) > 0 {
		msgs := make([]string, 0, len(errs))
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		s.blocked = &blockedReason{clusterv1.ClusterTopologyReconciledVariablesInvalidReason, strings.Join(msgs, "; ")}
		return nil
	}
	s.class, s.definitions = cc, defs
	return nil
}

func classNotReconciled(msg string) *blockedReason {
	return &blockedReason{clusterv1.ClusterTopologyReconciledClusterClassNotReconciledReason, msg}
}

// defaultedCluster is a copy of the Cluster whose variables and overrides carry the class's
// defaults (upstream's webhook writes them; here they are applied in memory on every reconcile).
func defaultedCluster(s *scope) *clusterv1.Cluster {
	c := s.cluster.DeepCopy()
	t := &c.Spec.Topology
	t.Variables = variables.Default(t.Variables, s.definitions)
	t.ControlPlane.Variables.Overrides = variables.DefaultOverrides(t.ControlPlane.Variables.Overrides, s.definitions)
	for i := range t.Workers.MachineDeployments {
		md := &t.Workers.MachineDeployments[i]
		md.Variables.Overrides = variables.DefaultOverrides(md.Variables.Overrides, s.definitions)
	}
	return c
}

// readTemplates reads the class's templates from the class's namespace.
func (r *Reconciler) readTemplates(ctx context.Context, s *scope) error {
	cc := s.class
	get := func(path string, ref clusterv1.ClusterClassTemplateReference) (*unstructured.Unstructured, error) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(ref.GroupVersionKind())
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: cc.Namespace, Name: ref.Name}, u); err != nil {
			return nil, fmt.Errorf("reading %s %s/%s (ClusterClass %s %s): %w", ref.Kind, cc.Namespace, ref.Name, cc.Name, path, err)
		}
		return u, nil
	}
	var errs []error
	var err error
	t := desired.Templates{MachineDeployments: map[string]desired.MachineDeploymentTemplates{}}
	t.InfrastructureCluster, err = get("spec.infrastructure.templateRef", cc.Spec.Infrastructure.TemplateRef)
	errs = append(errs, err)
	t.ControlPlane, err = get("spec.controlPlane.templateRef", cc.Spec.ControlPlane.TemplateRef)
	errs = append(errs, err)
	if ref := cc.Spec.ControlPlane.MachineInfrastructure.TemplateRef; ref.IsDefined() {
		t.ControlPlaneMachineInfrastructure, err = get("spec.controlPlane.machineInfrastructure.templateRef", ref)
		errs = append(errs, err)
	}
	used := map[string]bool{}
	for _, md := range s.cluster.Spec.Topology.Workers.MachineDeployments {
		used[md.Class] = true
	}
	for _, mdc := range cc.Spec.Workers.MachineDeployments {
		if !used[mdc.Class] {
			continue
		}
		p := "spec.workers.machineDeployments[" + mdc.Class + "]"
		var mt desired.MachineDeploymentTemplates
		mt.Bootstrap, err = get(p+".bootstrap.templateRef", mdc.Bootstrap.TemplateRef)
		errs = append(errs, err)
		mt.Infrastructure, err = get(p+".infrastructure.templateRef", mdc.Infrastructure.TemplateRef)
		errs = append(errs, err)
		t.MachineDeployments[mdc.Class] = mt
	}
	s.templates = t
	return errors.Join(errs...)
}

// readCurrent finds what the Cluster has: the referenced InfrastructureCluster and ControlPlane
// (and the machine template the latter references) and its topology MachineDeployments. It
// returns the control plane kind's contract version.
func (r *Reconciler) readCurrent(ctx context.Context, s *scope) (contract.ContractVersion, error) {
	c := s.cluster
	cpGK := schema.FromAPIVersionAndKind(s.templates.ControlPlane.GetAPIVersion(), strings.TrimSuffix(s.templates.ControlPlane.GetKind(), "Template")).GroupKind()
	v, err := contract.GetContractVersion(ctx, r.Client, cpGK)
	if err != nil {
		return "", fmt.Errorf("control plane kind %s: %w", cpGK, err)
	}
	cur := current{names: desired.Current{MachineDeployments: map[string]desired.CurrentMachineDeployment{}}, machineDeployments: map[string]*clusterv1.MachineDeployment{}}
	cur.names.InfrastructureClusterName = c.Spec.InfrastructureRef.Name
	if ref := c.Spec.ControlPlaneRef; ref.IsDefined() {
		cur.names.ControlPlaneName = ref.Name
		cp := &unstructured.Unstructured{}
		cp.SetGroupVersionKind(v.GroupVersionKind(ref.GroupKind()))
		err := r.Client.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: ref.Name}, cp)
		switch {
		case err == nil:
			cur.controlPlane = cp
			// Its status (versions, replica counts) drives the upgrade: reconcile on its changes.
			if err := r.watch(ctx, cp); err != nil {
				return "", err
			}
			if mref, err := contract.ControlPlane().MachineTemplateInfrastructureRef(v.Contract).Get(cp); err == nil {
				cur.names.ControlPlaneMachineInfrastructureName = mref.Name
			}
		case !apierrors.IsNotFound(err):
			return "", fmt.Errorf("reading ControlPlane %s: %w", ref.Name, err)
		}
	}
	mds := &clusterv1.MachineDeploymentList{}
	if err := r.Client.List(ctx, mds, client.InNamespace(c.Namespace), ownedBy(c)); err != nil {
		return "", fmt.Errorf("listing the Cluster's MachineDeployments: %w", err)
	}
	for i := range mds.Items {
		md := &mds.Items[i]
		name := md.Labels[clusterv1.ClusterTopologyMachineDeploymentNameLabel]
		if name == "" || !md.DeletionTimestamp.IsZero() {
			continue
		}
		cur.machineDeployments[name] = md
		cur.names.MachineDeployments[name] = desired.CurrentMachineDeployment{Name: md.Name,
			BootstrapName: md.Spec.Template.Spec.Bootstrap.ConfigRef.Name, InfrastructureName: md.Spec.Template.Spec.InfrastructureRef.Name}
	}
	s.current = cur
	return v.Contract, nil
}

// ownedBy selects the objects the topology generated for c.
func ownedBy(c *clusterv1.Cluster) client.ListOption {
	return client.MatchingLabels{clusterv1.ClusterNameLabel: c.Name, clusterv1.ClusterTopologyOwnedLabel: ""}
}
