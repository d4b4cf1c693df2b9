// Command core is the manager of Capstan's core provider (Cluster, Machine, MachineSet,
// MachineDeployment, MachineHealthCheck and MachinePool controllers, and the addons group's
// ClusterResourceSet and ClusterResourceSetBinding controllers). It builds the scheme, the
// controller-runtime manager (leader election on a Lease, metrics, health probes)
// and registers the provider's controllers; everything else lives in packages.
package main

import (
	"os"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/manager"
	"capstan.dev/core/internal/controller/machine"
)

func main() {
	opts := manager.NewOptions("core", "capstan-core-leader-election", "capstan-system", "cluster", "machine", "machineset", "machinedeployment", "machinehealthcheck", "machinepool",
		"clusterresourceset", "clusterresourcesetbinding", "clusterclass")
	opts.AddFlags(pflag.CommandLine)
	remoteConditionsGracePeriod := pflag.Duration("remote-conditions-grace-period", machine.DefaultRemoteConditionsGracePeriod,
		"How long a Machine keeps its last observed Node conditions while its workload cluster cannot be reached, from the last successful probe.")
	pflag.Parse()
	opts.SetupLogger()
	log := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, clusterv1.AddToScheme, addonsv1.AddToScheme} {
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

	if err := setupControllers(ctx, mgr, opts, *remoteConditionsGracePeriod); err != nil {
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
