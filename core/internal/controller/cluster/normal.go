package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/owner"
)

// externalRequeue is how often a missing referenced object is looked for again: it
// carries no owner reference yet, so no watch can announce its creation.
const externalRequeue = 10 * time.Second

func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	var res ctrl.Result
	var errs []error
	for _, step := range []func(context.Context, *scope) (ctrl.Result, error){
		r.reconcileInfrastructure, r.reconcileControlPlane, r.reconcileKubeconfig, r.reconcileDescendants, r.readAvailabilityGates,
	} {
		stepRes, err := step(ctx, s)
		errs = append(errs, err)
		if stepRes.RequeueAfter > 0 && (res.RequeueAfter == 0 || stepRes.RequeueAfter < res.RequeueAfter) {
			res = stepRes
		}
	}
	return res, errors.Join(errs...)
}

// getExternal reads and adopts a referenced object; its kind is watched.
func (r *Reconciler) getExternal(ctx context.Context, s *scope, ref clusterv1.ContractVersionedObjectReference) (*unstructured.Unstructured, contract.Version, bool, error) {
	c := s.cluster
	obj, v, notFound, err := r.tracker.GetAndWatch(ctx, r.Client, ref, c.Namespace)
	if notFound || err != nil {
		return nil, v, notFound, err
	}
	if err := external.Adopt(ctx, r.Client, obj, owner.ClusterReference(c), c.Name, nil); err != nil {
		return nil, v, false, err
	}
	return obj, v, false, nil
}

// reconcileInfrastructure copies what the infrastructure cluster reports.
func (r *Reconciler) reconcileInfrastructure(ctx context.Context, s *scope) (ctrl.Result, error) {
	c := s.cluster
	ref := c.Spec.InfrastructureRef
	if !ref.IsDefined() {
		if c.Spec.Topology.IsDefined() {
			return ctrl.Result{}, nil // the topology will reference an InfraCluster: wait for it
		}
		// No infrastructure provider: nothing to wait for.
		c.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
		return ctrl.Result{}, nil
	}
	obj, v, notFound, err := r.getExternal(ctx, s, ref)
	switch {
	case errors.Is(err, contract.ErrCRDNotFound):
		s.infraErr = err
		return ctrl.Result{RequeueAfter: externalRequeue}, nil
	case err != nil:
		return ctrl.Result{}, err
	case notFound:
		s.infraNotFound = true
		return ctrl.Result{RequeueAfter: externalRequeue}, nil
	}
	s.infra, s.infraContract = obj, v
	provisioned, err := contract.InfrastructureCluster().Provisioned(v.Contract).Get(obj)
	if err != nil && !errors.Is(err, contract.ErrFieldNotFound) {
		s.infraErr = err
		return ctrl.Result{}, nil
	}
	if fds, err := contract.InfrastructureCluster().FailureDomains(v.Contract).Get(obj); err == nil {
		c.Status.FailureDomains = nil
		for _, fd := range fds {
			c.Status.FailureDomains = append(c.Status.FailureDomains, clusterv1.FailureDomain{
				Name: fd.Name, ControlPlane: fd.ControlPlane, Attributes: fd.Attributes,
			})
		}
	}
	if provisioned == nil || !*provisioned {
		return ctrl.Result{}, nil
	}
	// The endpoint is copied only once provisioned, and only when the user did not
	// set one: a user-set endpoint wins.
	if !c.Spec.ControlPlaneEndpoint.IsValid() {
		if ep, err := contract.InfrastructureCluster().ControlPlaneEndpoint().Get(obj); err == nil && ep.IsValid() {
			c.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: ep.Host, Port: ep.Port}
		}
	}
	c.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	return ctrl.Result{}, nil
}

// reconcileControlPlane copies what the control plane reports: initialization,
// endpoint and replica counts.
func (r *Reconciler) reconcileControlPlane(ctx context.Context, s *scope) (ctrl.Result, error) {
	c := s.cluster
	ref := c.Spec.ControlPlaneRef
	if !ref.IsDefined() {
		return ctrl.Result{}, nil // initialization is judged from the Machines (reconcileDescendants)
	}
	obj, v, notFound, err := r.getExternal(ctx, s, ref)
	switch {
	case errors.Is(err, contract.ErrCRDNotFound):
		s.controlPlaneErr = err
		return ctrl.Result{RequeueAfter: externalRequeue}, nil
	case err != nil:
		return ctrl.Result{}, err
	case notFound:
		s.controlPlaneNotFound = true
		return ctrl.Result{RequeueAfter: externalRequeue}, nil
	}
	s.controlPlane, s.controlPlaneContract = obj, v
	cp := contract.ControlPlane()
	if initialized, err := cp.Initialized(v.Contract).Get(obj); err == nil && *initialized {
		c.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	} else if err != nil && !errors.Is(err, contract.ErrFieldNotFound) {
		s.controlPlaneErr = err
	}
	if !c.Spec.ControlPlaneEndpoint.IsValid() {
		if ep, err := cp.ControlPlaneEndpoint().Get(obj); err == nil && ep.IsValid() {
			c.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: ep.Host, Port: ep.Port}
		}
	}
	status := &clusterv1.ClusterControlPlaneStatus{}
	status.DesiredReplicas = int32Field(cp.Replicas().Get(obj))
	status.Replicas = int32Field(cp.StatusReplicas().Get(obj))
	status.ReadyReplicas = int32Field(cp.ReadyReplicas().Get(obj))
	if v.Contract == contract.V1Beta2 {
		status.AvailableReplicas = int32Field(cp.AvailableReplicas(v.Contract).Get(obj))
		status.UpToDateReplicas = int32Field(cp.UpToDateReplicas(v.Contract).Get(obj))
	}
	if c.Status.ControlPlane != nil {
		status.UpgradePlan = c.Status.ControlPlane.UpgradePlan // the topology controller's
	}
	if equality.Semantic.DeepEqual(*status, clusterv1.ClusterControlPlaneStatus{}) {
		status = nil // a control plane without replicas (e.g. a managed one), and no upgrade plan
	}
	c.Status.ControlPlane = status
	return ctrl.Result{}, nil
}

func int32Field(v *int64, err error) *int32 {
	if err != nil || v == nil {
		return nil
	}
	return ptr.To(int32(*v))
}

// reconcileDescendants lists the Cluster's Machines and Machine groups for the
// workers summary and, without a control-plane provider, decides initialization:
// the control plane is initialized once a control-plane Machine has a Node.
func (r *Reconciler) reconcileDescendants(ctx context.Context, s *scope) (ctrl.Result, error) {
	d, err := listDescendants(ctx, r.Client, s.cluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	s.descendants, s.listedDescendants = d, true
	if !s.cluster.Spec.ControlPlaneRef.IsDefined() {
		for _, m := range d.controlPlaneMachines {
			if m.Status.NodeRef.Name != "" {
				s.cluster.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
			}
		}
	}
	return ctrl.Result{}, nil
}

// objectName is "Kind name" for messages.
func objectName(ref clusterv1.ContractVersionedObjectReference) string {
	return fmt.Sprintf("%s %s", ref.Kind, ref.Name)
}

// readAvailabilityGates finds the conditions that gate Available besides the Cluster API ones:
// spec.availabilityGates, or, when the Cluster sets none and has a topology, its ClusterClass's,
// as upstream. A class that cannot be read adds no gate (TopologyReconciled reports it).
func (r *Reconciler) readAvailabilityGates(ctx context.Context, s *scope) (ctrl.Result, error) {
	c := s.cluster
	s.availabilityGates = c.Spec.AvailabilityGates
	if s.availabilityGates != nil || !c.Spec.Topology.IsDefined() {
		return ctrl.Result{}, nil
	}
	ns := c.Spec.Topology.ClassRef.Namespace
	if ns == "" {
		ns = c.Namespace
	}
	class := &clusterv1.ClusterClass{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: c.Spec.Topology.ClassRef.Name}, class); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	s.availabilityGates = class.Spec.AvailabilityGates
	return ctrl.Result{}, nil
}
