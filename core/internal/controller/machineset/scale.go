package machineset

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// syncReplicas creates or deletes Machines until the MachineSet has spec.replicas of them.
// Machines being deleted still count: a replacement is created once they are gone, so a
// MachineSet never runs more Machines than asked for.
//
// The cache may not have observed this controller's latest creations and deletions yet (or,
// after a restart, anything at all about them), so the decision to act is always taken on a live
// list: a cache that lags can cost one extra API read, never a duplicate Machine.
func (r *Reconciler) syncReplicas(ctx context.Context, s *scope) (ctrl.Result, error) {
	desired := int(DesiredReplicas(s.ms.Spec.Replicas, s.ms.Annotations))
	if len(s.machines) == desired {
		return ctrl.Result{}, nil
	}
	machines, err := r.liveMachines(ctx, s)
	if err != nil {
		return ctrl.Result{}, err
	}
	s.machines = machines
	switch diff := len(machines) - desired; {
	case diff < 0:
		return r.scaleUp(ctx, s, -diff)
	case diff > 0:
		return ctrl.Result{}, r.scaleDown(ctx, s, diff)
	}
	return ctrl.Result{}, nil
}

func (r *Reconciler) scaleUp(ctx context.Context, s *scope, count int) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	switch {
	case s.ms.Annotations[clusterv1.DisableMachineCreateAnnotation] == "true":
		s.scaleUpBlocked = fmt.Sprintf("Machine creation is disabled by the %s annotation", clusterv1.DisableMachineCreateAnnotation)
		log.V(4).Info("Not creating Machines: " + s.scaleUpBlocked)
		return ctrl.Result{}, nil
	case !s.cluster.DeletionTimestamp.IsZero():
		s.scaleUpBlocked = fmt.Sprintf("Cluster %s/%s is being deleted", s.cluster.Namespace, s.cluster.Name)
		log.V(4).Info("Not creating Machines: " + s.scaleUpBlocked)
		return ctrl.Result{}, nil
	}
	failed, err := r.runPreflightChecks(ctx, s)
	if err != nil {
		s.scaleUpBlocked = "preflight checks could not run: " + err.Error()
		return ctrl.Result{}, err
	}
	if len(failed) > 0 {
		s.scaleUpBlocked = preflightBlockedMessage(failed)
		log.Info("Not creating Machines: " + s.scaleUpBlocked)
		return ctrl.Result{RequeueAfter: preflightFailedRequeue}, nil
	}
	log.Info("Scaling up", "from", len(s.machines), "to", len(s.machines)+count)
	for range count {
		m, err := r.createMachine(ctx, s)
		r.recordCreate(s.ms, m, err)
		if err != nil {
			s.scaleUpBlocked = "creating a Machine failed: " + err.Error()
			return ctrl.Result{}, err
		}
		s.machines = append(s.machines, m)
	}
	slices.SortFunc(s.machines, func(a, b *clusterv1.Machine) int { return strings.Compare(a.Name, b.Name) })
	return ctrl.Result{}, nil
}

func (r *Reconciler) scaleDown(ctx context.Context, s *scope, count int) error {
	log := ctrl.LoggerFrom(ctx)
	ordered := slices.Clone(s.machines)
	if err := SortForDeletion(ordered, s.ms.Spec.Deletion.Order); err != nil {
		return err
	}
	log.Info("Scaling down", "from", len(s.machines), "to", len(s.machines)-count)
	var errs []error
	for _, m := range ordered[:count] {
		if deleting(m) {
			continue
		}
		log.Info("Deleting Machine", "Machine", klog.KObj(m), "tier", machineDeletionTier(m).String())
		if err := r.Client.Delete(ctx, m); err != nil && !apierrors.IsNotFound(err) {
			r.recordDelete(s.ms, m, "scale down", err)
			errs = append(errs, fmt.Errorf("deleting Machine %s: %w", m.Name, err))
			continue
		}
		r.recordDelete(s.ms, m, "scale down", nil)
		now := metav1.Now()
		m.DeletionTimestamp = &now
	}
	return errors.Join(errs...)
}

// createMachine creates one Machine from the template, then the BootstrapConfig and
// InfraMachine cloned from the template's <Kind>Templates, named like the Machine and created
// already controlled by it and labelled with the Cluster: nobody has to adopt them afterwards
// (a patch of each), and the providers can act on them at once. The Machine is created with its
// finalizer (as upstream does), which saves the Machine controller a write, and refers to the
// clones by name before they exist; the Machine controller waits quietly for them (see
// machine.CloneGracePeriod), and a MachineSet killed in between re-creates them
// (repairMissingClones). If a clone cannot be created, the Machine is deleted again, taking the
// clones made so far with it.
func (r *Reconciler) createMachine(ctx context.Context, s *scope) (*clusterv1.Machine, error) {
	log := ctrl.LoggerFrom(ctx)
	ms := s.ms
	tmpl := &ms.Spec.Template
	name, err := machineName(ms.Spec.MachineNaming.Template, ms.Spec.ClusterName, ms.Name)
	if err != nil {
		return nil, err
	}
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       ms.Namespace,
			Labels:          machineLabels(ms),
			Annotations:     maps.Clone(tmpl.Annotations),
			OwnerReferences: []metav1.OwnerReference{controllerRef(ms)},
			Finalizers:      []string{clusterv1.MachineFinalizer},
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	m.Spec.ClusterName = ms.Spec.ClusterName
	log = log.WithValues("Machine", klog.KObj(m))

	clones, err := r.newClones(ctx, ms, m)
	if err != nil {
		return nil, err
	}
	log.Info("Creating Machine")
	if err := r.Client.Create(ctx, m); err != nil {
		return nil, fmt.Errorf("creating Machine %s: %w", name, err)
	}
	for _, c := range clones {
		log.Info("Creating "+c.GetKind()+" for the Machine", c.GetKind(), klog.KObj(c))
		c.SetOwnerReferences([]metav1.OwnerReference{machineControllerRef(m)})
		if err := r.Client.Create(ctx, c); err != nil {
			cause := fmt.Errorf("creating %s %s for Machine %s: %w", c.GetKind(), c.GetName(), name, err)
			log.Info("Deleting the Machine whose " + c.GetKind() + " could not be created")
			if derr := r.Client.Delete(ctx, m); derr != nil && !apierrors.IsNotFound(derr) {
				return nil, errors.Join(cause, fmt.Errorf("deleting Machine %s: %w", name, derr))
			}
			return nil, cause
		}
	}
	return m, nil
}

// machineLabels are the labels of a new Machine: the template's, plus the set-name and
// cluster-name labels, plus the deployment-name and machine-template-hash labels a
// MachineDeployment put on the MachineSet.
func machineLabels(ms *clusterv1.MachineSet) map[string]string {
	out := maps.Clone(ms.Spec.Template.Labels)
	if out == nil {
		out = map[string]string{}
	}
	for _, k := range []string{clusterv1.MachineDeploymentNameLabel, clusterv1.MachineDeploymentUniqueLabel} {
		if v, ok := ms.Labels[k]; ok {
			if _, set := out[k]; !set {
				out[k] = v
			}
		}
	}
	out[clusterv1.MachineSetNameLabel] = LabelValue(ms.Name)
	out[clusterv1.ClusterNameLabel] = ms.Spec.ClusterName
	return out
}
