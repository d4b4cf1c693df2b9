package main

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/manager"
	"capstan.dev/contracts/remote"
	"capstan.dev/core/internal/controller/cluster"
	"capstan.dev/core/internal/controller/clusterclass"
	"capstan.dev/core/internal/controller/clusterresourceset"
	"capstan.dev/core/internal/controller/clusterresourcesetbinding"
	"capstan.dev/core/internal/controller/extensionconfig"
	"capstan.dev/core/internal/controller/machine"
	"capstan.dev/core/internal/controller/machinedeployment"
	"capstan.dev/core/internal/controller/machinehealthcheck"
	"capstan.dev/core/internal/controller/machinepool"
	"capstan.dev/core/internal/controller/machineset"
	"capstan.dev/core/internal/controller/topology"
	runtimeclient "capstan.dev/core/internal/runtime/client"
	"capstan.dev/core/internal/runtime/registry"
)

// coreSettings are the core manager's own flags.
type coreSettings struct {
	remoteConditionsGracePeriod time.Duration
	preflightChecks             sets.Set[clusterv1.MachineSetPreflightCheck]
	syncPatterns                machine.SyncPatterns
}

// setupControllers registers the ClusterCache and every core controller.
func setupControllers(ctx context.Context, mgr ctrl.Manager, opts *manager.Options, settings coreSettings) error {
	cc, err := remote.SetupWithManager(mgr, remote.Options{
		SecretReader:     mgr.GetAPIReader(),
		WatchFilterValue: opts.WatchFilterValue,
		Client:           opts.ClusterCacheClient(),
	})
	if err != nil {
		return fmt.Errorf("setting up the ClusterCache: %w", err)
	}
	workers := func(stem string) controller.Options {
		return controller.Options{MaxConcurrentReconciles: opts.Concurrency(stem)}
	}
	if err := (&cluster.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Health: cc, WatchFilterValue: opts.WatchFilterValue,
	}).SetupWithManager(ctx, mgr, workers("cluster")); err != nil {
		return err
	}
	if err := (&machine.Reconciler{
		Client: mgr.GetClient(), Workload: cc, WatchFilterValue: opts.WatchFilterValue,
		RemoteConditionsGracePeriod: settings.remoteConditionsGracePeriod, AdditionalSync: settings.syncPatterns,
		Recorder: events.New(mgr, machine.ControllerName),
	}).SetupWithManager(ctx, mgr, workers("machine")); err != nil {
		return err
	}
	if err := (&machinehealthcheck.Reconciler{
		Client: mgr.GetClient(), Workload: cc, WatchFilterValue: opts.WatchFilterValue,
		Recorder: events.New(mgr, machinehealthcheck.ControllerName),
	}).SetupWithManager(ctx, mgr, workers("machinehealthcheck")); err != nil {
		return err
	}
	if err := (&machinepool.Reconciler{
		Client: mgr.GetClient(), Workload: cc, WatchFilterValue: opts.WatchFilterValue,
	}).SetupWithManager(ctx, mgr, workers("machinepool")); err != nil {
		return err
	}
	if err := (&machineset.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), WatchFilterValue: opts.WatchFilterValue,
		PreflightChecks: settings.preflightChecks, Recorder: events.New(mgr, machineset.ControllerName),
	}).SetupWithManager(ctx, mgr, workers("machineset")); err != nil {
		return err
	}
	if err := (&machinedeployment.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), WatchFilterValue: opts.WatchFilterValue,
	}).SetupWithManager(ctx, mgr, workers("machinedeployment")); err != nil {
		return err
	}
	// The Runtime SDK: the ExtensionConfig controller discovers extensions into the registry the
	// client calls through; the ClusterClass controller calls DiscoverVariables, the topology
	// controller the lifecycle hooks, GeneratePatches, ValidateTopology and GenerateUpgradePlan.
	extensions := runtimeclient.New(registry.NewAwaitingWarmUp(), mgr.GetClient())
	if err := (&clusterclass.Reconciler{
		Client: mgr.GetClient(), WatchFilterValue: opts.WatchFilterValue, Runtime: extensions,
	}).SetupWithManager(ctx, mgr, workers("clusterclass")); err != nil {
		return err
	}
	if err := (&topology.Reconciler{
		Client: mgr.GetClient(), WatchFilterValue: opts.WatchFilterValue, Runtime: extensions,
		Recorder: events.New(mgr, topology.ControllerName),
	}).SetupWithManager(ctx, mgr, workers("topology")); err != nil {
		return err
	}
	if err := (&clusterresourceset.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Workload: cc, WatchFilterValue: opts.WatchFilterValue,
		Recorder: events.New(mgr, clusterresourceset.ControllerName),
	}).SetupWithManager(ctx, mgr, workers("clusterresourceset")); err != nil {
		return err
	}
	if err := (&clusterresourcesetbinding.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), WatchFilterValue: opts.WatchFilterValue,
	}).SetupWithManager(ctx, mgr, workers("clusterresourcesetbinding")); err != nil {
		return err
	}
	if err := (&extensionconfig.Reconciler{
		Client: mgr.GetClient(), Runtime: extensions, WatchFilterValue: opts.WatchFilterValue,
	}).SetupWithManager(ctx, mgr, workers("extensionconfig")); err != nil {
		return err
	}
	return nil
}
