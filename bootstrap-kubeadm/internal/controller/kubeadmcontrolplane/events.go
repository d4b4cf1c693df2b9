package kubeadmcontrolplane

import (
	"slices"
	"strings"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/events"
)

// ControllerName is the Events' reportingController, as upstream's.
const ControllerName = "kubeadmcontrolplane-controller"

// The reasons of the Events on a KubeadmControlPlane. FailedInitialization, FailedScaleUp and
// FailedScaleDown are upstream's; upstream records no Event when a step succeeds, named here
// alike. A step that replaces an outdated Machine is a RolloutStep, whichever way it goes.
const (
	ReasonSuccessfulScaleUp     = "SuccessfulScaleUp"
	ReasonSuccessfulScaleDown   = "SuccessfulScaleDown"
	ReasonRolloutStep           = "RolloutStep"
	ReasonFailedInitialization  = "FailedInitialization"
	ReasonFailedScaleUp         = "FailedScaleUp"
	ReasonFailedScaleDown       = "FailedScaleDown"
	ReasonEtcdMemberRemoved     = "EtcdMemberRemoved"
	ReasonControlPlaneUnhealthy = "ControlPlaneUnhealthy"
)

// rollingOut reports whether a Machine is outdated: a step taken now replaces it.
func (s *scope) rollingOut() bool {
	return slices.ContainsFunc(s.machines, func(m *clusterv1.Machine) bool { return !deleting(m) && s.isOutdated(m) })
}

// recordScaleUp records the creation of a Machine (m nil when it failed), once per attempt.
func (r *Reconciler) recordScaleUp(s *scope, m *clusterv1.Machine, init, rollout bool, err error) {
	switch {
	case err != nil && init:
		r.Recorder.Eventf(s.kcp, nil, events.Warning, ReasonFailedInitialization, "ScaleUp", "Failed to create the first control plane Machine: %v", err)
	case err != nil:
		r.Recorder.Eventf(s.kcp, nil, events.Warning, ReasonFailedScaleUp, "ScaleUp", "Failed to create a control plane Machine: %v", err)
	case rollout:
		r.Recorder.Eventf(s.kcp, m, events.Normal, ReasonRolloutStep, "ScaleUp", "Created Machine %s to replace an outdated Machine", m.Name)
	default:
		r.Recorder.Eventf(s.kcp, m, events.Normal, ReasonSuccessfulScaleUp, "ScaleUp", "Created Machine %s (%d desired)", m.Name, desiredReplicas(s.kcp))
	}
}

// recordScaleDown records the deletion of a Machine, once: a Machine being deleted is never
// chosen again.
func (r *Reconciler) recordScaleDown(s *scope, m *clusterv1.Machine, rollout bool, err error) {
	switch {
	case err != nil:
		r.Recorder.Eventf(s.kcp, m, events.Warning, ReasonFailedScaleDown, "ScaleDown", "Failed to delete Machine %s: %v", m.Name, err)
	case rollout:
		r.Recorder.Eventf(s.kcp, m, events.Normal, ReasonRolloutStep, "ScaleDown", "Deleted Machine %s (rollout)", m.Name)
	default:
		r.Recorder.Eventf(s.kcp, m, events.Normal, ReasonSuccessfulScaleDown, "ScaleDown", "Deleted Machine %s (%d desired)", m.Name, desiredReplicas(s.kcp))
	}
}

// recordEtcdMemberRemoved records the removal of an etcd member, of a deleting Machine (m) or
// of no Machine (m nil). A removed member is gone from the next list, so this happens once.
func (r *Reconciler) recordEtcdMemberRemoved(s *scope, m *clusterv1.Machine, member string) {
	if m == nil {
		r.Recorder.Eventf(s.kcp, nil, events.Normal, ReasonEtcdMemberRemoved, "RemoveEtcdMember", "Removed etcd member %s, which no Machine accounts for", member)
		return
	}
	r.Recorder.Eventf(s.kcp, m, events.Normal, ReasonEtcdMemberRemoved, "RemoveEtcdMember", "Removed etcd member %s of deleting Machine %s", member, m.Name)
}

// recordUnhealthy records upstream's ControlPlaneUnhealthy when the preflight checks stop a scale
// for the control plane's health, once per hold: not when the KubeadmControlPlane's conditions (the
// last reconcile's, written at its end) already say the same, nor when this manager recorded the
// same message last for it (the cache may not show that status write yet). A reconcile whose
// preflight checks pass ends the hold (forgetUnhealthy).
func (r *Reconciler) recordUnhealthy(s *scope, unhealthy bool, msg string) {
	if !unhealthy {
		return
	}
	for _, t := range []string{clusterv1.ScalingUpCondition, clusterv1.ScalingDownCondition, clusterv1.RollingOutCondition} {
		if c := conditions.Get(s.kcp, t); c != nil && strings.Contains(c.Message, msg) {
			return
		}
	}
	if last, ok := r.unhealthyHolds.Swap(s.kcp.UID, msg); ok && last == msg {
		return
	}
	r.Recorder.Eventf(s.kcp, nil, events.Warning, ReasonControlPlaneUnhealthy, "Preflight",
		"Waiting for the control plane to pass preflight checks to continue reconciliation: %s", msg)
}

// forgetUnhealthy ends the hold of kcp: the next unhealthy preflight is recorded again.
func (r *Reconciler) forgetUnhealthy(s *scope) {
	r.unhealthyHolds.Delete(s.kcp.UID)
}
