package machinepool

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/owner"
)

// reconcileNormal runs the steps of a live MachinePool; each step may ask to come back.
func (r *Reconciler) reconcileNormal(ctx context.Context, s *scope) (ctrl.Result, error) {
	reconcileOwnerAndLabels(s)
	var res ctrl.Result
	var errs []error
	for _, step := range []func(context.Context, *scope) (ctrl.Result, error){
		r.reconcileBootstrap, r.reconcileInfrastructure, r.reconcileNodes,
	} {
		stepRes, err := step(ctx, s)
		errs = append(errs, err)
		res = lowestRequeue(res, stepRes)
	}
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, err
	}
	return res, nil
}

// reconcileOwnerAndLabels labels the pool with its Cluster and makes the Cluster an
// owner, so the pool is deleted with the Cluster.
func reconcileOwnerAndLabels(s *scope) {
	owner.LabelCluster(s.pool, s.pool.Spec.ClusterName)
	if s.cluster != nil {
		owner.EnsureClusterOwner(s.pool, s.cluster)
	}
}

// reconcileBootstrap adopts the bootstrap config and copies the name of its data Secret
// into spec.template.spec.bootstrap.dataSecretName once the bootstrap provider reports
// it created (and again whenever the provider rotates it).
func (r *Reconciler) reconcileBootstrap(ctx context.Context, s *scope) (ctrl.Result, error) {
	mp := s.pool
	bootstrap := &mp.Spec.Template.Spec.Bootstrap
	if !bootstrap.ConfigRef.IsDefined() {
		// The user supplied the data Secret directly: nothing to wait for.
		if bootstrap.DataSecretName != nil {
			mp.Status.Initialization.BootstrapDataSecretCreated = ptr.To(true)
		}
		return ctrl.Result{}, nil
	}
	ref := bootstrap.ConfigRef
	obj, v, notFound, err := r.tracker.GetAndWatch(ctx, r.Client, ref, mp.Namespace)
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
	s.bootstrapConfig = obj
	if err := r.adopt(ctx, mp, obj); err != nil {
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
	bootstrap.DataSecretName = name
	mp.Status.Initialization.BootstrapDataSecretCreated = ptr.To(true)
	return ctrl.Result{}, nil
}

// reconcileInfrastructure adopts the InfraMachinePool and copies what it reports:
// provisioned, spec.providerIDList and status.replicas.
func (r *Reconciler) reconcileInfrastructure(ctx context.Context, s *scope) (ctrl.Result, error) {
	mp := s.pool
	ref := mp.Spec.Template.Spec.InfrastructureRef
	obj, v, notFound, err := r.tracker.GetAndWatch(ctx, r.Client, ref, mp.Namespace)
	if errors.Is(err, contract.ErrCRDNotFound) {
		s.infraErr = err
		return ctrl.Result{RequeueAfter: externalRequeue}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if notFound {
		s.infraNotFound = true
		if ptr.Deref(mp.Status.Initialization.InfrastructureProvisioned, false) {
			ctrl.LoggerFrom(ctx).Info("InfraMachinePool was deleted", ref.Kind, ref.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{RequeueAfter: externalRequeue}, nil
	}
	s.infraPool, s.infraVersion = obj, v
	if err := r.adopt(ctx, mp, obj); err != nil {
		return ctrl.Result{}, err
	}
	provisioned, err := infraPoolProvisioned(obj, v.Contract)
	if err != nil {
		s.infraErr = err
		return ctrl.Result{}, nil
	}
	if provisioned {
		mp.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	}

	ids, found, err := infraPoolProviderIDList(obj)
	if err != nil {
		s.infraErr = err
		return ctrl.Result{}, nil
	}
	replicas, err := infraPoolReplicas(obj)
	if err != nil {
		s.infraErr = err
		return ctrl.Result{}, nil
	}
	if !found {
		return ctrl.Result{}, nil // the provider has not listed its instances yet
	}
	if len(ids) == 0 && ptr.Deref(replicas, 0) != 0 {
		// An empty list with instances reported is a provider between two states; taking
		// it literally would retire every Node of the pool.
		ctrl.LoggerFrom(ctx).Info("Ignoring an empty spec.providerIDList while the InfraMachinePool reports replicas",
			"replicas", *replicas)
		return ctrl.Result{RequeueAfter: externalRequeue}, nil
	}
	s.providerIDListRead = true
	if !slices.Equal(mp.Spec.ProviderIDList, ids) {
		mp.Spec.ProviderIDList = ids
	}
	if replicas == nil {
		replicas = ptr.To(int32(len(ids)))
	}
	mp.Status.Replicas = replicas
	return ctrl.Result{}, nil
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
