package machine

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/owner"
	"capstan.dev/core/internal/controller/machineset"
)

// reconcileNormal runs the steps of a live Machine; each step may ask to come back.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	r.reconcileOwnerAndLabels(s)
	if err := r.reconcileUpToDate(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	var res ctrl.Result
	var errs []error
	for _, step := range []func(context.Context, *scope) (ctrl.Result, error){
		r.reconcileBootstrap, r.reconcileInfrastructure, r.reconcileNode,
	} {
		stepRes, err := step(ctx, s)
		errs = append(errs, err)
		res = lowestRequeue(res, stepRes)
	}
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, err
	}
	if wait := waitForCreator(s, time.Now()); wait > 0 {
		s.waitingForCreator = true
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	return lowestRequeue(res, availabilityRequeue(s, time.Now())), nil
}

// CloneGracePeriod is how long a new Machine waits quietly for the objects it references to
// appear. A MachineSet creates the Machine first and its bootstrap config and infrastructure
// machine right after, already owned by it (so nobody has to adopt them), so the Machine's
// first reconcile may find them missing for a moment; reporting that would cost a status write
// only to be corrected by the next one. After the grace period a missing object is reported
// (DoesNotExist), which is also what tells a MachineSet that was killed in between to create it.
const CloneGracePeriod = 10 * time.Second

// waitForCreator returns how long to wait, writing nothing, for the referenced objects of a new
// Machine that its creator (its controller owner) is still creating: only while the Machine
// carries its finalizer already, has never had a status written and is younger than
// CloneGracePeriod. Their creation events bring the reconcile back (they are owned by the
// Machine); the requeue is the bound.
func waitForCreator(s *scope, now time.Time) time.Duration {
	m := s.machine
	if !(s.bootstrapNotFound || s.infraNotFound) || !s.hadFinalizer || m.Status.Phase != "" || metav1.GetControllerOf(m) == nil {
		return 0
	}
	return m.CreationTimestamp.Add(CloneGracePeriod).Sub(now)
}

// reconcileOwnerAndLabels labels the Machine with its Cluster and, for a Machine
// nobody else owns, makes the Cluster its owner so it is deleted with the Cluster.
func (r *Reconciler) reconcileOwnerAndLabels(s *scope) {
	m := s.machine
	owner.LabelCluster(m, m.Spec.ClusterName)
	if s.cluster != nil && metav1.GetControllerOf(m) == nil {
		owner.EnsureClusterOwner(m, s.cluster)
	}
}

// reconcileBootstrap adopts the bootstrap config and copies the name of its data
// Secret into the Machine once the bootstrap provider reports it created.
func (r *Reconciler) reconcileBootstrap(ctx context.Context, s *scope) (ctrl.Result, error) {
	m := s.machine
	ref := m.Spec.Bootstrap.ConfigRef
	if !ref.IsDefined() {
		// The user supplied the data Secret directly: nothing to wait for.
		if m.Spec.Bootstrap.DataSecretName != nil {
			m.Status.Initialization.BootstrapDataSecretCreated = ptr.To(true)
		}
		return ctrl.Result{}, nil
	}
	obj, v, notFound, err := r.tracker.GetAndWatch(ctx, r.Client, ref, m.Namespace)
	if errors.Is(err, contract.ErrCRDNotFound) {
		s.bootstrapErr = err
		return ctrl.Result{RequeueAfter: externalRequeue}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if notFound {
		s.bootstrapNotFound = true
		return ctrl.Result{RequeueAfter: externalRequeue}, nil
	}
	s.bootstrapConfig, s.bootstrapContract = obj, v
	if err := r.adopt(ctx, m, obj); err != nil {
		return ctrl.Result{}, err
	}
	created, err := contract.Bootstrap().DataSecretCreated(v.Contract).Get(obj)
	if err != nil && !errors.Is(err, contract.ErrFieldNotFound) {
		s.bootstrapErr = err
		return ctrl.Result{}, nil
	}
	if created == nil || !*created {
		return ctrl.Result{}, nil // the watch on the config brings us back
	}
	name, err := contract.Bootstrap().DataSecretName().Get(obj)
	if err != nil {
		s.bootstrapErr = fmt.Errorf("%s reports its data Secret created but: %w", objectName(ref.Kind, obj), err)
		return ctrl.Result{}, nil
	}
	m.Spec.Bootstrap.DataSecretName = name
	m.Status.Initialization.BootstrapDataSecretCreated = ptr.To(true)
	return ctrl.Result{}, nil
}

// reconcileInfrastructure adopts the infrastructure machine and copies providerID,
// addresses and failure domain once the provider reports it provisioned.
func (r *Reconciler) reconcileInfrastructure(ctx context.Context, s *scope) (ctrl.Result, error) {
	m := s.machine
	obj, v, notFound, err := r.tracker.GetAndWatch(ctx, r.Client, m.Spec.InfrastructureRef, m.Namespace)
	if errors.Is(err, contract.ErrCRDNotFound) {
		s.infraErr = err
		return ctrl.Result{RequeueAfter: externalRequeue}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if notFound {
		s.infraNotFound = true
		if ptr.Deref(m.Status.Initialization.InfrastructureProvisioned, false) {
			// It existed and is gone (deleted by hand, or its machine vanished): the
			// Machine cannot recover on its own; InfrastructureReady says so and a
			// MachineHealthCheck or the user replaces the Machine.
			ctrl.LoggerFrom(ctx).Info("Infrastructure machine was deleted", "ref", m.Spec.InfrastructureRef.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{RequeueAfter: externalRequeue}, nil
	}
	s.infraMachine, s.infraContract = obj, v
	if err := r.adopt(ctx, m, obj); err != nil {
		return ctrl.Result{}, err
	}
	provisioned, err := contract.InfrastructureMachine().Provisioned(v.Contract).Get(obj)
	if err != nil && !errors.Is(err, contract.ErrFieldNotFound) {
		s.infraErr = err
		return ctrl.Result{}, nil
	}
	if provisioned == nil || !*provisioned {
		return ctrl.Result{}, nil
	}
	providerID, err := contract.InfrastructureMachine().ProviderID().Get(obj)
	if err != nil {
		s.infraErr = fmt.Errorf("%s reports itself provisioned but: %w", objectName(m.Spec.InfrastructureRef.Kind, obj), err)
		return ctrl.Result{}, nil
	}
	m.Spec.ProviderID = *providerID
	if addrs, err := contract.InfrastructureMachine().Addresses().Get(obj); err == nil {
		m.Status.Addresses = nil
		for _, a := range addrs {
			m.Status.Addresses = append(m.Status.Addresses, clusterv1.MachineAddress{
				Type: clusterv1.MachineAddressType(a.Type), Address: a.Address,
			})
		}
	} else if !errors.Is(err, contract.ErrFieldNotFound) {
		s.infraErr = err
	}
	if fd, err := contract.InfrastructureMachine().FailureDomain().Get(obj); err == nil {
		m.Status.FailureDomain = *fd
	} else if m.Spec.FailureDomain != "" {
		m.Status.FailureDomain = m.Spec.FailureDomain
	}
	m.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	return ctrl.Result{}, nil
}

// availabilityRequeue returns when a Ready Machine becomes Available after
// spec.minReadySeconds, so the condition flips without any other event.
func availabilityRequeue(s *scope, now time.Time) ctrl.Result {
	ready := conditions.Get(s.machine, clusterv1.MachineReadyCondition)
	min := time.Duration(ptr.Deref(s.machine.Spec.MinReadySeconds, 0)) * time.Second
	if ready == nil || ready.Status != metav1.ConditionTrue || min == 0 {
		return ctrl.Result{}
	}
	if wait := ready.LastTransitionTime.Add(min).Sub(now); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}
	}
	return ctrl.Result{}
}

// lowestRequeue keeps the sooner of two requeue requests.
func lowestRequeue(a, b ctrl.Result) ctrl.Result {
	switch {
	case a.RequeueAfter == 0:
		return b
	case b.RequeueAfter == 0:
		return a
	case b.RequeueAfter < a.RequeueAfter:
		return b
	}
	return a
}

// reconcileUpToDate gives a new Machine of a MachineSet its UpToDate condition with its first
// status write, computed as the MachineSet computes it (machineset.MachineUpToDateCondition);
// from then on the MachineSet maintains it. The MachineSet used to write it alone: one more
// status write of every new Machine, often conflicting with this controller's own (make bench).
func (r *Reconciler) reconcileUpToDate(ctx context.Context, s *scope) error {
	m := s.machine
	ref := metav1.GetControllerOf(m)
	if m.Status.Phase != "" || conditions.Get(m, clusterv1.MachineUpToDateCondition) != nil ||
		ref == nil || ref.Kind != "MachineSet" || ref.APIVersion != clusterv1.GroupVersion.String() {
		return nil
	}
	ms := &clusterv1.MachineSet{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: ref.Name}, ms); err != nil {
		return client.IgnoreNotFound(err)
	}
	if ms.UID != ref.UID {
		return nil
	}
	md, err := machineset.OwningMachineDeployment(ctx, r.Client, ms)
	if err != nil {
		return err
	}
	if c := machineset.MachineUpToDateCondition(ms, md); c != nil {
		conditions.Set(m, *c)
	}
	return nil
}
