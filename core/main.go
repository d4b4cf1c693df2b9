// Command core is the manager of Capstan's core provider (Cluster, Machine, MachineSet,
// MachineDeployment, MachineHealthCheck and MachinePool controllers, the addons group's
// ClusterResourceSet and ClusterResourceSetBinding controllers, and the Runtime SDK's
// ExtensionConfig controller; it serves the ipam group's IPAddressClaim and IPAddress,
// converting their older versions, and, as upstream, leaves reconciling them to IPAM
// providers). It builds the scheme, the
// controller-runtime manager (leader election on a Lease, metrics, health probes)
// and registers the provider's controllers; everything else lives in packages.
package main

import (
	"os"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	addonsv1beta1 "capstan.dev/contracts/api/addons/v1beta1"
	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	"capstan.dev/contracts/api/core/converters"
	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	ipamv1alpha1 "capstan.dev/contracts/api/ipam/v1alpha1"
	ipamv1beta1 "capstan.dev/contracts/api/ipam/v1beta1"
	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	runtimev1alpha1 "capstan.dev/contracts/api/runtime/v1alpha1"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/conversion"
	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/contracts/manager"
	"capstan.dev/core/internal/controller/machine"
	"capstan.dev/core/internal/controller/machineset"
)

// The diagnostics endpoint authenticates and authorizes each request through the management
// cluster (contracts/manager: --diagnostics-address).
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

func main() {
	opts := manager.NewOptions("core", "capstan-core-leader-election", "capstan-system", "cluster", "machine", "machineset", "machinedeployment", "machinehealthcheck", "machinepool",
		"clusterresourceset", "clusterresourcesetbinding", "clusterclass", "topology", "extensionconfig")
	opts.AddFlags(pflag.CommandLine)
	remoteConditionsGracePeriod := pflag.Duration("remote-conditions-grace-period", machine.DefaultRemoteConditionsGracePeriod,
		"How long a Machine keeps its last observed Node conditions while its workload cluster cannot be reached, from the last successful probe.")
	preflightChecks := pflag.StringSlice("machineset-preflight-checks", []string{string(clusterv1.MachineSetPreflightCheckAll)},
		"The preflight checks MachineSets run before creating or remediating Machines: All, or a list of ControlPlaneIsStable, "+
			"KubernetesVersionSkew, KubeadmVersionSkew, ControlPlaneVersionSkew; an empty value (--machineset-preflight-checks=) runs none.")
	syncLabels := pflag.StringArray("additional-sync-machine-labels", nil,
		"A regular expression selecting further Machine labels to put on the Machine's Node, besides those of the node-role.kubernetes.io, "+
			"node-restriction.kubernetes.io and node.cluster.x-k8s.io domains; a label whose key any of them matches is synced. Repeat the flag for several.")
	syncAnnotations := pflag.StringArray("additional-sync-machine-annotations", nil,
		"A regular expression selecting Machine annotations to put on the Machine's Node; an annotation whose key any of them matches is synced. Repeat the flag for several.")
	pflag.Parse()
	opts.SetupLogger()
	log := ctrl.Log.WithName("setup")
	checks, err := machineset.ParsePreflightChecks(*preflightChecks)
	if err != nil {
		log.Error(err, "Invalid --machineset-preflight-checks")
		os.Exit(1)
	}
	syncPatterns, err := machine.CompileSyncPatterns(*syncLabels, *syncAnnotations)
	if err != nil {
		log.Error(err, "Invalid Machine-to-Node sync pattern")
		os.Exit(1)
	}

	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, clusterv1.AddToScheme, clusterv1beta1.AddToScheme, addonsv1.AddToScheme, addonsv1beta1.AddToScheme,
		ipamv1.AddToScheme, ipamv1beta1.AddToScheme, ipamv1alpha1.AddToScheme,
		runtimev1.AddToScheme, runtimev1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			log.Error(err, "Unable to build the scheme")
			os.Exit(1)
		}
	}

	ctx := ctrl.SetupSignalHandler()
	mgr, err := manager.New(opts, scheme, ctrl.GetConfigOrDie())
	if err != nil {
		log.Error(err, "Unable to create the manager")
		os.Exit(1)
	}

	// v1beta1 is served through the conversion webhook; references that v1beta1 clients did not
	// write get the API version their CRD's contract label names (read through the cache).
	resolver := conversion.CRDContractResolver{Reader: mgr.GetClient()}
	if err := conversionwebhook.Setup(mgr, opts.Webhook, converters.Kinds(resolver)); err != nil {
		log.Error(err, "Unable to set up the conversion webhook")
		os.Exit(1)
	}

	if err := setupControllers(ctx, mgr, opts, coreSettings{
		remoteConditionsGracePeriod: *remoteConditionsGracePeriod, preflightChecks: checks, syncPatterns: syncPatterns,
	}); err != nil {
		log.Error(err, "Unable to set up controllers")
		os.Exit(1)
	}

	log.Info("Starting manager", "leaderElectionID", opts.LeaderElectionID, "namespace", opts.LeaderElectionNS)
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "Manager stopped with an error")
		os.Exit(1)
	}
	log.Info("Manager stopped")
}
