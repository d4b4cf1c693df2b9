/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Command example-manager is the manager of the conformance kit's example infrastructure
// provider (ExampleCluster and ExampleMachine controllers, and from v0.2.0 the conversion
// webhook serving v1alpha1 over the stored v1alpha2), packaged as a third-party provider for
// capstanctl's e2e: a provider outside Capstan's own three, released in two versions. It
// builds the scheme and the manager as Capstan's providers do (contracts/manager) and
// registers the example's reconcilers; the bootstrap half of the example (ExampleConfig)
// is not part of this provider.
package main

import (
	"os"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	infrav1alpha1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha1"
	infrav1alpha2 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha2"
	examplecontroller "capstan.dev/contracts/conformance/example/controller"
	"capstan.dev/contracts/conformance/example/conversion"
	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/contracts/manager"
)

// version is the provider release, set at link time: -ldflags "-X main.version=v0.2.0".
var version = "dev"

// Leader election on a Lease in the provider's namespace, and the Events the elector records.
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=example-system,resources=leases,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// The diagnostics endpoint authenticates and authorizes each request through the management
// cluster (contracts/manager: --diagnostics-address).
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// The conversion webhook (contracts/conversionwebhook, v0.2.0) reads the provider's CRDs live,
// points them at itself (caBundle, client config) and turns v1alpha1 on: get and patch on
// exactly those CRDs.
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;patch,resourceNames=exampleclusters.infrastructure.example.capstan.dev;examplemachines.infrastructure.example.capstan.dev;examplemachinetemplates.infrastructure.example.capstan.dev
// Behind a Service (--webhook-service=example-system/example-webhook-service) the replicas share
// one CA and serving certificate through the Secret example-webhook-service-cert beside it:
// read live by name, created by the first replica, rewritten when it rotates. Create cannot be
// narrowed to a name, get and update can; a Role in the provider's namespace only.
// +kubebuilder:rbac:groups="",namespace=example-system,resources=secrets,verbs=create
// +kubebuilder:rbac:groups="",namespace=example-system,resources=secrets,verbs=get;update,resourceNames=example-webhook-service-cert

func main() {
	opts := manager.NewOptions("example-manager", "example-infrastructure-leader-election", "example-system",
		"examplecluster", "examplemachine")
	opts.AddFlags(pflag.CommandLine)
	pflag.Parse()
	opts.SetupLogger()
	log := ctrl.Log.WithName("setup")
	log.Info("Starting example-manager", "version", version)

	// Both API versions: the reconcilers use v1alpha1, the conversion webhook converts to and
	// from v1alpha2, and the webhook turns on every CRD version this scheme knows.
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, clusterv1.AddToScheme, ipamv1.AddToScheme,
		infrav1alpha1.AddToScheme, infrav1alpha2.AddToScheme} {
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

	// A no-op without --webhook-bind-address: v0.1.0's CRDs hold v1alpha1 alone and its
	// Deployment passes no webhook flag. v0.2.0's CRDs store v1alpha2 and serve v1alpha1 through it.
	if err := conversionwebhook.Setup(mgr, opts.Webhook, conversion.Kinds()); err != nil {
		log.Error(err, "Unable to set up the conversion webhook")
		os.Exit(1)
	}

	// The reconcilers stay on v1alpha1 in both releases: they are the conformance kit's
	// example, proven against v1alpha1's CRDs. Under v0.2.0 the API server converts each of
	// their reads, watches and writes through the webhook above to and from stored v1alpha2.
	copts := func(stem string) controller.Options {
		return controller.Options{MaxConcurrentReconciles: opts.Concurrency(stem)}
	}
	if err := (&examplecontroller.ExampleClusterReconciler{Client: mgr.GetClient(), WatchFilterValue: opts.WatchFilterValue}).
		SetupWithManager(mgr, copts("examplecluster")); err != nil {
		log.Error(err, "Unable to set up the ExampleCluster controller")
		os.Exit(1)
	}
	if err := (&examplecontroller.ExampleMachineReconciler{Client: mgr.GetClient(), WatchFilterValue: opts.WatchFilterValue}).
		SetupWithManager(mgr, copts("examplemachine")); err != nil {
		log.Error(err, "Unable to set up the ExampleMachine controller")
		os.Exit(1)
	}

	log.Info("Starting manager", "leaderElectionID", opts.LeaderElectionID, "namespace", opts.LeaderElectionNS)
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "Manager stopped with an error")
		os.Exit(1)
	}
	log.Info("Manager stopped")
}
