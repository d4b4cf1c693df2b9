package clusterclass

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/external"
	"capstan.dev/contracts/patch"
	"capstan.dev/contracts/predicates"
	runtimeclient "capstan.dev/core/internal/runtime/client"
)

// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusterclasses;clusterclasses/status,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io;controlplane.cluster.x-k8s.io;bootstrap.cluster.x-k8s.io,resources=*,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch
// +kubebuilder:rbac:groups=runtime.cluster.x-k8s.io,resources=extensionconfigs,verbs=get;list;watch

// Reconciler reconciles ClusterClasses.
type Reconciler struct {
	Client client.Client
	// WatchFilterValue limits reconciliation to labelled objects (--watch-filter).
	WatchFilterValue string
	// Runtime calls the DiscoverVariables handlers of external patches; nil calls none (a class
	// that names one gets VariablesReady False saying so).
	Runtime *runtimeclient.Client

	tracker     *external.Tracker
	discoveries discoveryCache
}

// SetupWithManager registers the controller: ClusterClasses, the Clusters using them (created,
// deleted, or moved to another class) and, lazily, the kinds of the templates they reference,
// mapped back to every class of the namespace that references them.
func (r *Reconciler) SetupWithManager(_ context.Context, mgr ctrl.Manager, opts controller.Options) error {
	if r.Client == nil {
		return fmt.Errorf("clusterclass reconciler needs Client")
	}
	b := ctrl.NewControllerManagedBy(mgr).
		For(&clusterv1.ClusterClass{}, builder.WithPredicates(predicates.ResourceHasFilterLabel(r.WatchFilterValue))).
		// A deleting class waits for the Clusters that use it to go or to use another class.
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(clusterToClusterClass), builder.WithPredicates(classRefChanged))
	if r.Runtime != nil {
		// A changed extension may define other variables: discover them again.
		b = b.Watches(&runtimev1.ExtensionConfig{}, handler.EnqueueRequestsFromMapFunc(r.extensionConfigToClusterClasses))
	}
	c, err := b.WithOptions(opts).Build(patch.RequeueOnConflict(r))
	if err != nil {
		return fmt.Errorf("creating the clusterclass controller: %w", err)
	}
	r.tracker = &external.Tracker{
		Controller: c,
		Cache:      mgr.GetCache(),
		// Not by owner: a template created after its class has no owner reference yet.
		Handler: handler.EnqueueRequestsFromMapFunc(r.templateToClusterClasses),
	}
	return nil
}

// templateToClusterClasses requests every ClusterClass of the template's namespace that
// references it (by group, kind and name: the version may differ).
func (r *Reconciler) templateToClusterClasses(ctx context.Context, o client.Object) []reconcile.Request {
	classes := &clusterv1.ClusterClassList{}
	if err := r.Client.List(ctx, classes, client.InNamespace(o.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Listing ClusterClasses to map a template event")
		return nil
	}
	gk := o.GetObjectKind().GroupVersionKind().GroupKind()
	var out []reconcile.Request
	for i := range classes.Items {
		for _, t := range templateRefs(&classes.Items[i]) {
			if t.ref.Name == o.GetName() && t.ref.GroupVersionKind().GroupKind() == gk {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&classes.Items[i])})
				break
			}
		}
	}
	return out
}

// Reconcile is the controller's entry point.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, retErr error) {
	cc := &clusterv1.ClusterClass{}
	if err := r.Client.Get(ctx, req.NamespacedName, cc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if r.Runtime != nil && !r.Runtime.Registry.Ready() && hasDiscoveredVariables(cc) {
		// Its DiscoverVariables handler may not be registered yet: its variables would flap to
		// "not registered" until the registry holds what was discovered before this manager started.
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	helper, err := patch.NewHelper(cc, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	s := &scope{class: cc}
	defer func() {
		setStatus(s, retErr)
		if err := helper.Patch(ctx, cc); err != nil && !apierrors.IsNotFound(err) && retErr == nil {
			retErr = fmt.Errorf("patching ClusterClass %s: %w", cc.Name, err)
		}
	}()
	if s.paused = predicates.SetPausedCondition(cc, nil); s.paused {
		return ctrl.Result{}, nil
	}
	if !cc.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	// Not a step of its own: the status this reconcile computes goes out in the same patch.
	controllerutil.AddFinalizer(cc, clusterv1.ClusterClassFinalizer)
	return r.reconcileNormal(ctx, s)
}

// scope holds what one reconcile found.
type scope struct {
	class  *clusterv1.ClusterClass
	paused bool
	// deleting: no Cluster uses the class any more and it is going away; nothing was checked.
	deleting bool
	// usedBy names (namespace/name, sorted) the Clusters holding the deletion of a deleting class.
	usedBy []string

	// refProblems say, per template, what is wrong with it (missing, unreadable); outdated
	// lists references at an older API version than their CRD's contract declares.
	refProblems []string
	outdated    []string

	// variableProblems say what is wrong with the variable schemas and patches; nil when
	// status.variables was published.
	variableProblems []string
}

// templateRef is a template reference with where the class holds it.
type templateRef struct {
	path string // e.g. spec.workers.machineDeployments[default-worker].infrastructure.templateRef
	ref  clusterv1.ClusterClassTemplateReference
}

// templateRefs lists the class's template references in spec order.
func templateRefs(cc *clusterv1.ClusterClass) []templateRef {
	refs := []templateRef{
		{"spec.infrastructure.templateRef", cc.Spec.Infrastructure.TemplateRef},
		{"spec.controlPlane.templateRef", cc.Spec.ControlPlane.TemplateRef},
	}
	if mi := cc.Spec.ControlPlane.MachineInfrastructure.TemplateRef; mi.IsDefined() {
		refs = append(refs, templateRef{"spec.controlPlane.machineInfrastructure.templateRef", mi})
	}
	for _, md := range cc.Spec.Workers.MachineDeployments {
		p := "spec.workers.machineDeployments[" + md.Class + "]"
		refs = append(refs, templateRef{p + ".bootstrap.templateRef", md.Bootstrap.TemplateRef},
			templateRef{p + ".infrastructure.templateRef", md.Infrastructure.TemplateRef})
	}
	for _, mp := range cc.Spec.Workers.MachinePools {
		p := "spec.workers.machinePools[" + mp.Class + "]"
		refs = append(refs, templateRef{p + ".bootstrap.templateRef", mp.Bootstrap.TemplateRef},
			templateRef{p + ".infrastructure.templateRef", mp.Infrastructure.TemplateRef})
	}
	return refs
}

// key identifies a template whatever the version it is referenced at.
func (t templateRef) key() string {
	gk := schema.FromAPIVersionAndKind(t.ref.APIVersion, t.ref.Kind).GroupKind()
	return gk.String() + "/" + t.ref.Name
}

// hasDiscoveredVariables says whether an external patch of cc discovers variables.
func hasDiscoveredVariables(cc *clusterv1.ClusterClass) bool {
	for _, p := range cc.Spec.Patches {
		if p.External != nil && p.External.DiscoverVariablesExtension != "" {
			return true
		}
	}
	return false
}
