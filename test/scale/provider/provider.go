package provider

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/patch"
)

// Options configure the provider.
type Options struct {
	// ProvisionDelay is how long after its creation an object becomes provisioned.
	ProvisionDelay time.Duration
	// WorkloadKubeconfig is stored as every Cluster's <cluster>-kubeconfig; its server
	// is reported as the control-plane endpoint.
	WorkloadKubeconfig []byte
	// Concurrency is the number of workers per controller (default 16), high enough
	// that the provider never queues behind the core.
	Concurrency int
}

// ProviderIDPrefix starts every providerID the provider sets: scale:///<namespace>/<name>.
const ProviderIDPrefix = "scale:///"

// NodeLabel marks the Nodes the provider registers, with the namespace of their
// Machine as value, so a benchmark can count and clean them up.
const NodeLabel = "scale.capstan.dev/namespace"

// SetupWithManager registers the four reconcilers on mgr, whose client must write
// as the provider's own user.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	endpoint, err := serverEndpoint(opts.WorkloadKubeconfig)
	if err != nil {
		return err
	}
	if opts.Concurrency < 1 {
		opts.Concurrency = 16
	}
	p := &scaleProvider{client: mgr.GetClient(), reader: mgr.GetAPIReader(), opts: opts, endpoint: endpoint}
	// Names may repeat: tests and benchmark runs start the provider more than once
	// in one process, and nobody reads its controller metrics.
	copts := controller.Options{MaxConcurrentReconciles: opts.Concurrency, SkipNameValidation: ptr.To(true)}
	for _, c := range []struct {
		name string
		gvk  schema.GroupVersionKind
		r    reconcile.Reconciler
		opts []builder.ForOption
	}{
		{"scale-infracluster", infraClusterGVK, reconcile.Func(p.reconcileInfraCluster), nil},
		{"scale-controlplane", controlPlaneGVK, reconcile.Func(p.reconcileControlPlane), nil},
		{"scale-bootstrapconfig", bootstrapConfigGVK, reconcile.Func(p.reconcileBootstrapConfig), nil},
	} {
		if err := ctrl.NewControllerManagedBy(mgr).Named(c.name).For(newObject(c.gvk)).WithOptions(copts).
			Complete(patch.RequeueOnConflict(c.r)); err != nil {
			return fmt.Errorf("setting up %s: %w", c.name, err)
		}
	}
	// An InfraMachine waits for its Machine's bootstrap data, a spec change of the
	// Machine (status churn does not bump the generation).
	return ctrl.NewControllerManagedBy(mgr).Named("scale-inframachine").For(newObject(infraMachineGVK)).WithOptions(copts).
		Watches(&clusterv1.Machine{}, handler.EnqueueRequestsFromMapFunc(machineToInfraMachine),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(patch.RequeueOnConflict(reconcile.Func(p.reconcileInfraMachine)))
}

// scaleProvider holds what the reconcilers share.
type scaleProvider struct {
	client   client.Client
	reader   client.Reader
	opts     Options
	endpoint contract.APIEndpoint
}

// waitBeforeProvisioning is how long obj still has to wait for ProvisionDelay.
func (p *scaleProvider) waitBeforeProvisioning(obj client.Object, now time.Time) time.Duration {
	return obj.GetCreationTimestamp().Add(p.opts.ProvisionDelay).Sub(now)
}

// getGeneric reads a generic object; a missing one is (nil, nil).
func (p *scaleProvider) getGeneric(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, error) {
	obj := newObject(gvk)
	if err := p.client.Get(ctx, key, obj); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	return obj, nil
}

// ownerOfKind is the owner reference of obj to a core object of kind, if any.
func ownerOfKind(obj client.Object, kind string) (metav1.OwnerReference, bool) {
	for _, ref := range obj.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err == nil && gv.Group == clusterv1.GroupVersion.Group && ref.Kind == kind {
			return ref, true
		}
	}
	return metav1.OwnerReference{}, false
}

// serverEndpoint is the host and port of the kubeconfig's current server.
func serverEndpoint(kubeconfig []byte) (contract.APIEndpoint, error) {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return contract.APIEndpoint{}, fmt.Errorf("reading the workload kubeconfig: %w", err)
	}
	ctx, ok := cfg.Contexts[cfg.CurrentContext]
	if !ok || cfg.Clusters[ctx.Cluster] == nil {
		return contract.APIEndpoint{}, fmt.Errorf("the workload kubeconfig has no current context with a cluster")
	}
	u, err := url.Parse(cfg.Clusters[ctx.Cluster].Server)
	if err != nil {
		return contract.APIEndpoint{}, fmt.Errorf("the workload kubeconfig's server: %w", err)
	}
	host, portText, err := net.SplitHostPort(u.Host)
	if err != nil {
		return contract.APIEndpoint{}, fmt.Errorf("the workload kubeconfig's server %q has no port: %w", u.Host, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return contract.APIEndpoint{}, fmt.Errorf("the workload kubeconfig's server port %q: %w", portText, err)
	}
	return contract.APIEndpoint{Host: host, Port: int32(port)}, nil
}
