package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	bootstrapv1 "capstan.dev/contracts/conformance/example/api/bootstrap/v1alpha1"
	"capstan.dev/contracts/mapping"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
)

// +kubebuilder:rbac:groups=bootstrap.example.capstan.dev,resources=exampleconfigs;exampleconfigs/status,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machines,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create

// ExampleConfigReconciler reconciles ExampleConfigs.
type ExampleConfigReconciler struct {
	Client client.Client
	// WatchFilterValue limits reconciliation to objects labelled
	// cluster.x-k8s.io/watch-filter=<value> (--watch-filter).
	WatchFilterValue string
}

// SetupWithManager watches ExampleConfigs, their Machines and Clusters.
func (r *ExampleConfigReconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	filter := predicates.ResourceHasFilterLabel(r.WatchFilterValue)
	newList := func() client.ObjectList { return &bootstrapv1.ExampleConfigList{} }
	return ctrl.NewControllerManagedBy(mgr).
		For(&bootstrapv1.ExampleConfig{}, builder.WithPredicates(filter)).
		WithOptions(opts).
		Watches(&clusterv1.Machine{}, handler.EnqueueRequestsFromMapFunc(machineToExampleConfig), builder.WithPredicates(filter)).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(mapping.ClusterObjectToObjects(r.Client, newList)),
			builder.WithPredicates(filter, predicates.ClusterUpdateTriggersChildren())).
		Complete(patch.RequeueOnConflict(r))
}

// machineToExampleConfig maps a Machine to the ExampleConfig of its bootstrap.configRef.
func machineToExampleConfig(_ context.Context, o client.Object) []reconcile.Request {
	m, ok := o.(*clusterv1.Machine)
	if !ok {
		return nil
	}
	ref := m.Spec.Bootstrap.ConfigRef
	if ref.APIGroup != bootstrapv1.GroupVersion.Group || ref.Kind != "ExampleConfig" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: m.Namespace, Name: ref.Name}}}
}

// Reconcile writes the data Secret of an ExampleConfig once its Machine owns it
// and its Cluster's infrastructure is provisioned. The config needs no
// finalizer: the Secret is owned by it and goes with it.
func (r *ExampleConfigReconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	cfg := &bootstrapv1.ExampleConfig{}
	if err := r.Client.Get(ctx, req.NamespacedName, cfg); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	helper, err := patch.NewHelper(cfg, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	defer func() { retErr = errors.Join(retErr, helper.Patch(ctx, cfg)) }()

	machine, cluster := &clusterv1.Machine{}, &clusterv1.Cluster{}
	hasMachine, err := getOptional(ctx, r.Client, cfg.Namespace, ownerNamed(cfg, "Machine"), machine)
	if err != nil {
		return ctrl.Result{}, err
	}
	hasCluster, err := getOptional(ctx, r.Client, cfg.Namespace, cfg.Labels[clusterv1.ClusterNameLabel], cluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !hasCluster {
		cluster = nil
	}
	if predicates.SetPausedCondition(cfg, cluster) || !cfg.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if !hasMachine || cluster == nil || !ptr.Deref(cluster.Status.Initialization.InfrastructureProvisioned, false) {
		return ctrl.Result{}, nil // the watches re-trigger us
	}
	// The Secret's name is the config's: deterministic, so a move or restore finds it.
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: cfg.Namespace, Name: cfg.Name,
			Labels: map[string]string{clusterv1.ClusterNameLabel: cluster.Name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: bootstrapv1.GroupVersion.String(), Kind: "ExampleConfig",
				Name: cfg.Name, UID: cfg.UID, Controller: ptr.To(true)}},
		},
		Type: clusterv1.ClusterSecretType,
		Data: map[string][]byte{"value": []byte(render(cfg.Spec.Commands)), "format": []byte("cloud-config")},
	}
	if err := r.Client.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
		return ctrl.Result{}, fmt.Errorf("creating the data Secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	cfg.Status.DataSecretName = s.Name
	cfg.Status.Initialization.DataSecretCreated = ptr.To(true)
	return ctrl.Result{}, nil
}

// render is the bootstrap data: a cloud-config running the commands and writing
// the contract's success sentinel.
func render(commands []string) string {
	var b strings.Builder
	b.WriteString("#cloud-config\nruncmd:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "- %q\n", c)
	}
	b.WriteString("- \"mkdir -p /run/cluster-api && echo success > /run/cluster-api/bootstrap-success.complete\"\n")
	return b.String()
}
