package main

import (
	"context"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"capstan.dev/contracts/manager"
	"capstan.dev/contracts/remote"
	"capstan.dev/infrastructure-docker/internal/controller/dockercluster"
	"capstan.dev/infrastructure-docker/internal/controller/dockermachine"
	"capstan.dev/infrastructure-docker/internal/controller/dockermachinepool"
	"capstan.dev/infrastructure-docker/internal/devkinds"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// setupControllers registers the ClusterCache and every controller of the provider on the
// Docker Engine rt.
func setupControllers(ctx context.Context, mgr ctrl.Manager, opts *manager.Options, rt *docker.Runtime) error {
	workers := func(stem string) controller.Options {
		return controller.Options{MaxConcurrentReconciles: opts.Concurrency(stem)}
	}
	cc, err := remote.SetupWithManager(mgr, remote.Options{
		SecretReader:     mgr.GetAPIReader(),
		WatchFilterValue: opts.WatchFilterValue,
		Client:           opts.ClusterCacheClient(),
	})
	if err != nil {
		return fmt.Errorf("setting up the ClusterCache: %w", err)
	}
	// Each controller runs twice: for the Docker kinds, and for upstream's Dev kinds, which the
	// same logic reconciles (one implementation, two API shapes; package devkinds).
	for _, dev := range []bool{false, true} {
		kinds := devkinds.For(dev)
		if err := (&dockercluster.Reconciler{
			Client: mgr.GetClient(), Docker: rt, WatchFilterValue: opts.WatchFilterValue, Dev: dev,
		}).SetupWithManager(ctx, mgr, workers("dockercluster")); err != nil {
			return fmt.Errorf("setting up the %s controller: %w", kinds.Cluster, err)
		}
		if err := (&dockermachine.Reconciler{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Docker: rt, Workload: cc,
			WatchFilterValue: opts.WatchFilterValue, Dev: dev,
		}).SetupWithManager(ctx, mgr, workers("dockermachine")); err != nil {
			return fmt.Errorf("setting up the %s controller: %w", kinds.Machine, err)
		}
		if err := (&dockermachinepool.Reconciler{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Docker: rt, Workload: cc,
			WatchFilterValue: opts.WatchFilterValue, Dev: dev,
		}).SetupWithManager(ctx, mgr, workers("dockermachinepool")); err != nil {
			return fmt.Errorf("setting up the %s controller: %w", kinds.MachinePool, err)
		}
	}
	return nil
}
