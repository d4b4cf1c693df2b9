// Command infrastructure-docker is the manager of Capstan's Docker infrastructure provider (DockerCluster,
// DockerMachine and DockerMachinePool controllers, which also serve upstream's DevCluster,
// DevMachine and DevMachinePool, and the conversion webhook serving the Docker kinds at v1beta1). It builds the scheme, the
// controller-runtime manager (leader election on a Lease, metrics, health probes)
// and registers the provider's controllers; everything else lives in packages.
package main

import (
	"os"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/contracts/manager"
	infrav1beta1 "capstan.dev/infrastructure-docker/api/v1beta1"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/converters"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// The diagnostics endpoint authenticates and authorizes each request through the management
// cluster (contracts/manager: --diagnostics-address).
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

func main() {
	opts := manager.NewOptions("infrastructure-docker", "capstan-docker-infrastructure-leader-election", "capstan-docker-system", "dockercluster", "dockermachine", "dockermachinepool")
	opts.AddFlags(pflag.CommandLine)
	plane := pflag.String("docker-network", "capstan",
		"Name of the management plane's internal Docker network; it also labels every container, volume and network the provider creates, so several management planes can share one Docker Engine.")
	pflag.Parse()
	opts.SetupLogger()
	log := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, clusterv1.AddToScheme, infrav1.AddToScheme, infrav1beta1.AddToScheme} {
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

	// v1beta1 is served through the conversion webhook, on the provider's own CRDs only.
	if err := conversionwebhook.Setup(mgr, opts.Webhook, converters.Kinds()); err != nil {
		log.Error(err, "Unable to set up the conversion webhook")
		os.Exit(1)
	}

	rt, err := docker.New(*plane)
	if err != nil {
		log.Error(err, "Unable to create the Docker client")
		os.Exit(1)
	}
	defer rt.Close()
	if err := setupControllers(ctx, mgr, opts, rt); err != nil {
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
