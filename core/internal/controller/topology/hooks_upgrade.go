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

package topology

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	"capstan.dev/contracts/patch"
	"capstan.dev/core/internal/runtime/tracking"
	"capstan.dev/core/internal/topology/upgrade"
)

// upgradeHooks collects what the upgrade lifecycle hooks of one reconcile hold.
type upgradeHooks struct {
	holds upgrade.HookHolds
	// blocking lists "<Hook>: <message>" for each hook whose answer holds (upstream's wording).
	blocking []string
	// retry is the lowest non-zero retryAfterSeconds of the blocking answers.
	retry int32
}

// block records that hook holds with message and returns what each held object's line of the
// condition says.
func (h *upgradeHooks) block(hook, message string, retry int32) string {
	entry := hook
	if message != "" {
		entry += ": " + message
	}
	h.blocking = append(h.blocking, entry)
	if retry > 0 && (h.retry == 0 || retry < h.retry) {
		h.retry = retry
	}
	return "held by the " + hook + " hook"
}

// reconcileUpgradeHooks calls the upgrade lifecycle hooks (Runtime SDK) as upstream's topology
// controller does, and recomputes the upgrade plan with what they hold:
//   - once a control plane step is done (the control plane stable): AfterControlPlaneUpgrade,
//     then BeforeWorkersUpgrade, then, once the workers run that version, AfterWorkersUpgrade,
//     each only while marked pending in the Cluster's pending-hooks annotation;
//   - before the control plane takes a step: BeforeClusterUpgrade at the start of an upgrade
//     (AfterClusterUpgrade not pending; a before-upgrade.hook.cluster.cluster.x-k8s.io/* annotation
//     holds it without a call), then BeforeControlPlaneUpgrade; once both let it go, the hooks
//     owed afterwards are marked pending before the new version is applied (kill -9 safe);
//   - once everything runs spec.topology.version and is stable: AfterClusterUpgrade.
//
// A hook with no registered handler is not called; a pending one is just cleared. A blocking
// answer holds what it guards, shows in TopologyReconciled (ClusterUpgrading, "Following hooks are
// blocking upgrade: …"), is recorded as an Event and asks again after its retryAfterSeconds; a
// failed call fails the reconcile (its error names the extension and the hook).
func (r *Reconciler) reconcileUpgradeHooks(ctx context.Context, s *scope) error {
	in := s.upgradeInput
	if s.upgrade == nil || in.ControlPlane.Version == "" {
		return nil // a Cluster being created: no upgrade
	}
	h := &upgradeHooks{}
	if err := r.afterStepHooks(ctx, s, h); err != nil {
		return err
	}
	s.upgrade = recompute(in, h)
	if h.holds.ControlPlane == "" && s.upgrade.ControlPlaneVersion != in.ControlPlane.Version {
		if err := r.beforeStepHooks(ctx, s, h); err != nil {
			return err
		}
		s.upgrade = recompute(in, h)
	}
	if len(h.blocking) == 0 {
		if err := r.afterClusterUpgrade(ctx, s, h); err != nil {
			return err
		}
	}
	if len(h.blocking) == 0 {
		return nil
	}
	msg := "Following hooks are blocking upgrade: " + strings.Join(h.blocking, "; ")
	s.upgrade.Reason = clusterv1.ClusterTopologyReconciledClusterUpgradingReason
	s.upgrade.Pending = append([]string{msg}, s.upgrade.Pending...)
	r.recordHookBlocking(s, s.upgrade.Reason, msg)
	s.requeueAfter = time.Duration(h.retry) * time.Second
	return nil
}

// recompute is the plan of in with the hooks' holds.
func recompute(in upgrade.Input, h *upgradeHooks) *upgrade.Plan {
	in.Hooks = h.holds
	return upgrade.Compute(in)
}

// afterStepHooks calls the hooks owed once a step is done, in upstream's order, stopping at the
// first that holds: AfterControlPlaneUpgrade holds the workers (and their creation) and the next
// control plane step, BeforeWorkersUpgrade the workers, AfterWorkersUpgrade the next control
// plane step (and AfterClusterUpgrade, which waits for it). All wait for a stable control plane.
func (r *Reconciler) afterStepHooks(ctx context.Context, s *scope, h *upgradeHooks) error {
	c, in := s.cluster, s.upgradeInput
	cp := in.ControlPlane
	if cp.Provisioning || cp.Upgrading || cp.Scaling {
		return nil
	}
	steps := upgradeSteps(s.upgrade)
	if tracking.IsPending(c, hooksv1.AfterControlPlaneUpgrade) {
		req := &hooksv1.AfterControlPlaneUpgradeRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.AfterControlPlaneUpgrade, "Request"),
			Cluster: hookCluster(c), KubernetesVersion: cp.Version, ControlPlaneUpgrades: steps.controlPlane, WorkersUpgrades: steps.workers}
		held, err := r.callTracked(ctx, s, h, hooksv1.AfterControlPlaneUpgrade, req, func() hooksv1.Response { return &hooksv1.AfterControlPlaneUpgradeResponse{} })
		if err != nil || held != "" {
			h.holds = upgrade.HookHolds{ControlPlane: held, Workers: held, Create: held}
			return err
		}
	}
	if tracking.IsPending(c, hooksv1.BeforeWorkersUpgrade) {
		req := &hooksv1.BeforeWorkersUpgradeRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.BeforeWorkersUpgrade, "Request"),
			Cluster: hookCluster(c), FromKubernetesVersion: workersFrom(in), ToKubernetesVersion: cp.Version,
			ControlPlaneUpgrades: steps.controlPlane, WorkersUpgrades: steps.workers}
		held, err := r.callTracked(ctx, s, h, hooksv1.BeforeWorkersUpgrade, req, func() hooksv1.Response { return &hooksv1.BeforeWorkersUpgradeResponse{} })
		if err != nil || held != "" {
			h.holds = upgrade.HookHolds{ControlPlane: held, Workers: held}
			return err
		}
	}
	if !tracking.IsPending(c, hooksv1.AfterWorkersUpgrade) {
		return nil
	}
	if !workersAt(in, cp.Version) {
		// Not a hold of the hook (it is not asked yet): the control plane waits for the workers.
		h.holds.ControlPlane = "the workers have not all reached " + cp.Version + " (AfterWorkersUpgrade pending)"
		return nil
	}
	req := &hooksv1.AfterWorkersUpgradeRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.AfterWorkersUpgrade, "Request"),
		Cluster: hookCluster(c), KubernetesVersion: cp.Version, ControlPlaneUpgrades: steps.controlPlane, WorkersUpgrades: steps.workers}
	held, err := r.callTracked(ctx, s, h, hooksv1.AfterWorkersUpgrade, req, func() hooksv1.Response { return &hooksv1.AfterWorkersUpgradeResponse{} })
	h.holds.ControlPlane = held
	return err
}

// beforeStepHooks calls the hooks that must let the control plane take the step the plan gives
// it: BeforeClusterUpgrade at the start of an upgrade, then BeforeControlPlaneUpgrade. Once both
// let it go, the hooks owed after the step are marked pending, before the step is applied: a
// restart then still calls them. A hold holds the control plane at its version. As upstream, a
// crash between the mark and the apply makes the next reconcile ask AfterControlPlaneUpgrade about
// the version the control plane still runs before the step is taken again: a call too many, never
// one too few.
func (r *Reconciler) beforeStepHooks(ctx context.Context, s *scope, h *upgradeHooks) error {
	c, in := s.cluster, s.upgradeInput
	from, next := in.ControlPlane.Version, s.upgrade.ControlPlaneVersion
	steps := upgradeSteps(s.upgrade)
	if !tracking.IsPending(c, hooksv1.AfterClusterUpgrade) {
		if keys := beforeUpgradeAnnotations(c); len(keys) > 0 {
			msg := fmt.Sprintf("annotations %s are set", strings.Join(keys, ", "))
			if len(keys) == 1 {
				msg = fmt.Sprintf("annotation %s is set", keys[0])
			}
			// No requeue: removing the annotation is a Cluster event that reconciles again.
			h.holds.ControlPlane = h.block(hooksv1.BeforeClusterUpgrade, msg, 0)
			return nil
		}
		if r.Runtime == nil {
			return nil // no Runtime SDK: nothing to call now, nothing owed later
		}
		req := &hooksv1.BeforeClusterUpgradeRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.BeforeClusterUpgrade, "Request"),
			Cluster: hookCluster(c), FromKubernetesVersion: from, ToKubernetesVersion: in.Target,
			ControlPlaneUpgrades: steps.controlPlane, WorkersUpgrades: steps.workers}
		held, err := r.callBlocking(ctx, s, h, hooksv1.BeforeClusterUpgrade, req, func() hooksv1.Response { return &hooksv1.BeforeClusterUpgradeResponse{} })
		if err != nil || held != "" {
			h.holds.ControlPlane = held
			return err
		}
		// Marked now, so that BeforeClusterUpgrade is not asked again until this upgrade is done.
		if err := r.markPending(ctx, s, hooksv1.AfterClusterUpgrade); err != nil {
			return err
		}
	}
	if r.Runtime == nil {
		return nil
	}
	req := &hooksv1.BeforeControlPlaneUpgradeRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.BeforeControlPlaneUpgrade, "Request"),
		Cluster: hookCluster(c), FromKubernetesVersion: from, ToKubernetesVersion: next,
		ControlPlaneUpgrades: steps.controlPlane, WorkersUpgrades: steps.workers}
	held, err := r.callBlocking(ctx, s, h, hooksv1.BeforeControlPlaneUpgrade, req, func() hooksv1.Response { return &hooksv1.BeforeControlPlaneUpgradeResponse{} })
	if err != nil || held != "" {
		h.holds.ControlPlane = held
		return err
	}
	owed := []string{hooksv1.AfterControlPlaneUpgrade}
	if w := s.upgrade.WorkersUpgradePlan; len(w) > 0 && w[0] == next {
		// The workers take this step too: their hooks are owed once the control plane is done.
		owed = append(owed, hooksv1.BeforeWorkersUpgrade, hooksv1.AfterWorkersUpgrade)
	}
	return r.markPending(ctx, s, owed...)
}

// afterClusterUpgrade calls AfterClusterUpgrade while it is pending and the upgrade is done: the
// other "after" hooks were called, the control plane runs spec.topology.version and is stable,
// and no MachineDeployment or MachinePool is upgrading, held, deferred or waiting to be created.
// Its hold holds nothing in place: it keeps the annotation, which refuses the next upgrade.
func (r *Reconciler) afterClusterUpgrade(ctx context.Context, s *scope, h *upgradeHooks) error {
	c, in := s.cluster, s.upgradeInput
	cp := in.ControlPlane
	if !tracking.IsPending(c, hooksv1.AfterClusterUpgrade) ||
		slices.ContainsFunc([]string{hooksv1.AfterControlPlaneUpgrade, hooksv1.BeforeWorkersUpgrade, hooksv1.AfterWorkersUpgrade},
			func(hook string) bool { return tracking.IsPending(c, hook) }) ||
		cp.Version != in.Target || cp.Provisioning || cp.Upgrading || cp.Scaling || len(s.upgrade.Pending) > 0 {
		return nil
	}
	req := &hooksv1.AfterClusterUpgradeRequest{TypeMeta: hooksv1.TypeMeta(hooksv1.AfterClusterUpgrade, "Request"),
		Cluster: hookCluster(c), KubernetesVersion: in.Target}
	_, err := r.callTracked(ctx, s, h, hooksv1.AfterClusterUpgrade, req, func() hooksv1.Response { return &hooksv1.AfterClusterUpgradeResponse{} })
	return err
}

// callTracked calls a hook marked pending and clears the mark once it lets go (at once when no
// handler is registered). It returns the hold's line ("" when it let go).
func (r *Reconciler) callTracked(ctx context.Context, s *scope, h *upgradeHooks, hook string, req hooksv1.Request,
	newResp func() hooksv1.Response) (string, error) {
	held, err := r.callBlocking(ctx, s, h, hook, req, newResp)
	if err != nil || held != "" {
		return held, err
	}
	if err := tracking.MarkDone(ctx, r.Client, s.cluster, hook); err != nil {
		return "", err
	}
	ctrl.LoggerFrom(ctx).Info("Upgrade lifecycle hook done", "hook", hook)
	return "", s.resnapshot(r)
}

// callBlocking calls every handler of a blocking hook for the Cluster; none registered (or no
// Runtime SDK) is an answer that lets go. It returns the hold's line ("" when it let go).
func (r *Reconciler) callBlocking(ctx context.Context, s *scope, h *upgradeHooks, hook string, req hooksv1.Request,
	newResp func() hooksv1.Response) (string, error) {
	held, err := r.callHoldingHook(ctx, s.cluster, hook, req, newResp)
	if err != nil || held == nil {
		return "", err
	}
	ctrl.LoggerFrom(ctx).Info("Upgrade held by a lifecycle hook", "hook", hook, "retryAfterSeconds", held.retrySeconds())
	return h.block(hook, held.message, held.retrySeconds()), nil
}

// markPending marks hooks pending on the Cluster, written at once (before the step they follow is
// applied), and takes the Cluster's patch helper anew. Nothing is marked while no extension serves
// any upgrade hook: upstream would mark and later clear each (writes for nothing, and a version
// change refused at admission meanwhile), which for Capstan, whose Runtime SDK is always on, would
// be every upgrade of every Cluster.
func (r *Reconciler) markPending(ctx context.Context, s *scope, hooks ...string) error {
	if !slices.ContainsFunc(upgradeHookNames(), func(h string) bool { return len(r.Runtime.Registry.ForHook(h)) > 0 }) {
		return nil
	}
	if err := tracking.MarkPending(ctx, r.Client, s.cluster, hooks...); err != nil {
		return err
	}
	return s.resnapshot(r)
}

// upgradeHookNames are the lifecycle hooks of an upgrade.
func upgradeHookNames() []string {
	return []string{hooksv1.BeforeClusterUpgrade, hooksv1.BeforeControlPlaneUpgrade, hooksv1.AfterControlPlaneUpgrade,
		hooksv1.BeforeWorkersUpgrade, hooksv1.AfterWorkersUpgrade, hooksv1.AfterClusterUpgrade}
}

// resnapshot takes the patch helper anew after the pending-hooks annotation was written, so the
// reconcile's final patch is based on that write rather than conflicting with it. Nothing else of
// the Cluster has been changed in memory before the hooks run.
func (s *scope) resnapshot(r *Reconciler) error {
	var err error
	s.helper, err = patch.NewHelper(s.cluster, r.Client)
	return err
}

// hookSteps are the remaining upgrade plan as hook requests carry it.
type hookSteps struct{ controlPlane, workers []hooksv1.UpgradeStepInfo }

func upgradeSteps(p *upgrade.Plan) hookSteps {
	conv := func(vs []string) []hooksv1.UpgradeStepInfo {
		var out []hooksv1.UpgradeStepInfo
		for _, v := range vs {
			out = append(out, hooksv1.UpgradeStepInfo{Version: v})
		}
		return out
	}
	return hookSteps{conv(p.ControlPlaneUpgradePlan), conv(p.WorkersUpgradePlan)}
}

// workersAt reports whether every existing MachineDeployment and MachinePool runs version (their
// Machines and Nodes too). Those not created yet do not count: they are created at the target.
func workersAt(in upgrade.Input, version string) bool {
	for _, w := range append(slices.Clone(in.MachineDeployments), in.MachinePools...) {
		if w.Version != "" && (w.Upgrading || w.Version != version) {
			return false
		}
	}
	return true
}

// workersFrom is the version BeforeWorkersUpgrade is told the workers move from: the first
// existing worker's not at the control plane's version (the control plane's when none is behind).
func workersFrom(in upgrade.Input) string {
	for _, w := range append(slices.Clone(in.MachineDeployments), in.MachinePools...) {
		if w.Version != "" && w.Version != in.ControlPlane.Version {
			return w.Version
		}
	}
	return in.ControlPlane.Version
}

// beforeUpgradeAnnotations are the Cluster's annotations that hold an upgrade before it starts, sorted.
func beforeUpgradeAnnotations(c *clusterv1.Cluster) []string {
	var keys []string
	for k := range c.Annotations {
		if strings.HasPrefix(k, clusterv1.BeforeClusterUpgradeHookAnnotationPrefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
