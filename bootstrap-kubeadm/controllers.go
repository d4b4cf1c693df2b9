package main

import (
	"context"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"capstan.dev/bootstrap-kubeadm/api/converters"
	"capstan.dev/bootstrap-kubeadm/internal/controller/kubeadmconfig"
	"capstan.dev/bootstrap-kubeadm/internal/controller/kubeadmcontrolplane"
	"capstan.dev/contracts/conversion"
	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/manager"
	"capstan.dev/contracts/remote"
)

// setupControllers registers the ClusterCache and the provider's controllers.
func setupControllers(ctx context.Context, mgr ctrl.Manager, opts *manager.Options, tokenTTL time.Duration) error {
	cc, err := remote.SetupWithManager(mgr, remote.Options{
		SecretReader:     mgr.GetAPIReader(),
		WatchFilterValue: opts.WatchFilterValue,
		Client:           opts.ClusterCacheClient(),
	})
	if err != nil {
		return fmt.Errorf("setting up the ClusterCache: %w", err)
	}
	if err := (&kubeadmconfig.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Workload: cc,
		TokenTTL: tokenTTL, WatchFilterValue: opts.WatchFilterValue,
		Recorder: events.New(mgr, kubeadmconfig.ControllerName),
	}).SetupWithManager(ctx, mgr, controller.Options{MaxConcurrentReconciles: opts.Concurrency("kubeadmconfig")}); err != nil {
		return err
	}
	if err := (&kubeadmcontrolplane.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Workload: cc,
		WatchFilterValue: opts.WatchFilterValue, Recorder: events.New(mgr, kubeadmcontrolplane.ControllerName),
	}).SetupWithManager(ctx, mgr, controller.Options{MaxConcurrentReconciles: opts.Concurrency("kubeadmcontrolplane")}); err != nil {
		return err
	}
	return nil
}

// setupConversionWebhook serves v1beta1 of the provider's kinds through the conversion webhook
// (when --webhook-bind-address is set); the KubeadmControlPlane's infrastructure reference gets
// the API version its CRD's contract label names (read through the cache).
func setupConversionWebhook(mgr ctrl.Manager, opts *manager.Options) error {
	resolver := conversion.CRDContractResolver{Reader: mgr.GetClient()}
	return conversionwebhook.Setup(mgr, opts.Webhook, converters.Kinds(resolver))
}
