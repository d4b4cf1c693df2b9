package controller

import (
	"context"
	"errors"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	infrav1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha1"
	"capstan.dev/contracts/mapping"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
)

// +kubebuilder:rbac:groups=infrastructure.example.capstan.dev,resources=examplemachines;examplemachines/status;examplemachines/finalizers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machines,verbs=get;list;watch

// ProviderIDScheme is the scheme of the example's provider IDs: example:///<name>.
const ProviderIDScheme = "example"

// ExampleMachineReconciler reconciles ExampleMachines.
type ExampleMachineReconciler struct {
	Client client.Client
	// WatchFilterValue limits reconciliation to objects labelled
	// cluster.x-k8s.io/watch-filter=<value> (--watch-filter).
	WatchFilterValue string
}

// SetupWithManager watches ExampleMachines, their Machines (bootstrap data
// arriving), Clusters (infrastructure provisioned, unpaused) and IPAddressClaims.
func (r *ExampleMachineReconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	filter := predicates.ResourceHasFilterLabel(r.WatchFilterValue)
	newList := func() client.ObjectList { return &infrav1.ExampleMachineList{} }
	return ctrl.NewControllerManagedBy(mgr).
		For(&infrav1.ExampleMachine{}, builder.WithPredicates(filter)).
		WithOptions(opts).
		// The IPAM provider's answer to a claim (status.addressRef) and a claim's deletion.
		Owns(&ipamv1.IPAddressClaim{}).
		Watches(&clusterv1.Machine{}, handler.EnqueueRequestsFromMapFunc(machineToExampleMachine), builder.WithPredicates(filter)).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(mapping.ClusterObjectToObjects(r.Client, newList)),
			builder.WithPredicates(filter, predicates.ClusterUpdateTriggersChildren())).
		Complete(patch.RequeueOnConflict(r))
}

// machineToExampleMachine maps a Machine to the ExampleMachine of its infrastructureRef.
func machineToExampleMachine(_ context.Context, o client.Object) []reconcile.Request {
	m, ok := o.(*clusterv1.Machine)
	if !ok || m.Spec.InfrastructureRef.APIGroup != infrav1.GroupVersion.Group || m.Spec.InfrastructureRef.Kind != "ExampleMachine" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: m.Namespace, Name: m.Spec.InfrastructureRef.Name}}}
}

// Reconcile provisions an ExampleMachine once its Machine owns it, its Cluster's
// infrastructure is provisioned and its bootstrap data exists.
func (r *ExampleMachineReconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	em := &infrav1.ExampleMachine{}
	if err := r.Client.Get(ctx, req.NamespacedName, em); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	helper, err := patch.NewHelper(em, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	defer func() { retErr = errors.Join(retErr, helper.Patch(ctx, em)) }()

	// 1. The owner Machine (set by the core's Machine controller) and the Cluster
	// (named by the cluster-name label, which the core sets too).
	machine, cluster := &clusterv1.Machine{}, &clusterv1.Cluster{}
	hasMachine, err := getOptional(ctx, r.Client, em.Namespace, ownerNamed(em, "Machine"), machine)
	if err != nil {
		return ctrl.Result{}, err
	}
	hasCluster, err := getOptional(ctx, r.Client, em.Namespace, em.Labels[clusterv1.ClusterNameLabel], cluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !hasCluster {
		cluster = nil
	}
	// 2. Pause: report it, and do nothing else (not even deletion).
	if predicates.SetPausedCondition(em, cluster) {
		return ctrl.Result{}, nil
	}
	if !em.DeletionTimestamp.IsZero() {
		// A real provider deletes the machine here, then releases its addresses, then lets go.
		released, err := releaseAddresses(ctx, r.Client, em)
		if err != nil || !released {
			return ctrl.Result{}, err // the claims' deletion re-triggers us (Owns)
		}
		controllerutil.RemoveFinalizer(em, infrav1.MachineFinalizer)
		return ctrl.Result{}, nil
	}
	if !hasMachine || cluster == nil {
		return ctrl.Result{}, nil // the owner reference's arrival re-triggers us
	}
	// 3. The finalizer, before anything exists that deletion would have to release.
	controllerutil.AddFinalizer(em, infrav1.MachineFinalizer)
	// 4. The addresses of spec.addressesFromPools, claimed from their IPAM providers (ipam.go).
	ips, claimed, err := claimAddresses(ctx, r.Client, em, cluster.Name)
	if err != nil || !claimed {
		return ctrl.Result{}, err
	}
	// 5. The contract's waits: the Cluster's infrastructure, then the bootstrap data.
	if !ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false) || machine.Spec.Bootstrap.DataSecretName == nil {
		return ctrl.Result{}, nil // the Cluster and Machine watches re-trigger us
	}
	// 6. Provision: a real provider creates the machine from the bootstrap data here.
	em.Spec.ProviderID = ProviderIDScheme + ":///" + em.Name
	em.Status.Addresses = []clusterv1.MachineAddress{{Type: clusterv1.MachineHostName, Address: em.Name}}
	for _, ip := range ips {
		em.Status.Addresses = append(em.Status.Addresses, clusterv1.MachineAddress{Type: clusterv1.MachineInternalIP, Address: ip})
	}
	em.Status.FailureDomain = machine.Spec.FailureDomain
	// 7. The signal the core waits for, in the same write as providerID and addresses.
	em.Status.Initialization.Provisioned = ptr.To(true)
	return ctrl.Result{}, nil
}
