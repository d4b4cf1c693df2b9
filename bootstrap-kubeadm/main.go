// Command bootstrap-kubeadm is the manager of Capstan's kubeadm bootstrap and control-plane provider
// (KubeadmConfig and KubeadmControlPlane controllers). It builds the scheme, the
// controller-runtime manager (leader election on a Lease, metrics, health probes)
// and registers the provider's controllers; everything else lives in packages.
package main

import (
	"os"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	bootstrapv1beta1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta1"
	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1beta1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta1"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/controller/kubeadmconfig"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/manager"
)

// The diagnostics endpoint authenticates and authorizes each request through the management
// cluster (contracts/manager: --diagnostics-address).
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

func main() {
	opts := manager.NewOptions("bootstrap-kubeadm", "capstan-kubeadm-bootstrap-leader-election", "capstan-kubeadm-bootstrap-system", "kubeadmconfig", "kubeadmcontrolplane")
	opts.AddFlags(pflag.CommandLine)
	var tokenTTL time.Duration
	pflag.CommandLine.DurationVar(&tokenTTL, "bootstrap-token-ttl", kubeadmconfig.DefaultTokenTTL,
		"How long the bootstrap tokens created for joining nodes are valid.")
	pflag.Parse()
	opts.SetupLogger()
	log := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, clusterv1.AddToScheme, bootstrapv1.AddToScheme, controlplanev1.AddToScheme,
		bootstrapv1beta1.AddToScheme, controlplanev1beta1.AddToScheme} {
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

	if err := setupConversionWebhook(mgr, opts); err != nil {
		log.Error(err, "Unable to set up the conversion webhook")
		os.Exit(1)
	}

	if err := setupControllers(ctx, mgr, opts, tokenTTL); err != nil {
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
