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

package kubeadmcontrolplane

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/etcd"
	"capstan.dev/contracts/kcprollout"
)

// RemediationFieldManager owns the OwnerRemediated condition the KubeadmControlPlane writes on a
// Machine it remediates: from then on the owner, not the MachineHealthCheck, speaks for it.
const RemediationFieldManager = "capstan-kubeadmcontrolplane-remediation"

// machineOwnerRemediatedMachineDeletingReason is OwnerRemediated's reason once the owner deletes
// the Machine to replace it (upstream's wording).
const machineOwnerRemediatedMachineDeletingReason = "MachineDeleting"

// needsRemediation is a Machine a MachineHealthCheck found unhealthy and handed to its owner:
// HealthCheckSucceeded=False and OwnerRemediated=False, not already being deleted.
func needsRemediation(m *clusterv1.Machine) bool {
	if deleting(m) {
		return false
	}
	hc := conditions.Get(m, clusterv1.MachineHealthCheckSucceededCondition)
	or := conditions.Get(m, clusterv1.MachineOwnerRemediatedCondition)
	return hc != nil && hc.Status == metav1.ConditionFalse && or != nil && or.Status == metav1.ConditionFalse
}

// remediationCandidate is the Machine to remediate first: the oldest of those marked, so a
// Machine that keeps failing does not starve the others.
func remediationCandidate(machines []*clusterv1.Machine) *clusterv1.Machine {
	var marked []*clusterv1.Machine
	for _, m := range machines {
		if needsRemediation(m) {
			marked = append(marked, m)
		}
	}
	if len(marked) == 0 {
		return nil
	}
	return kcprollout.Oldest(marked)
}

// remediationBlocked says why the candidate may not be deleted now; empty when it may. A
// control plane is remediated one Machine at a time. Once it is initialized, never its only
// Machine, and only when the healthy etcd members of the other healthy Machines keep the quorum
// of the cluster without the candidate's member (upstream's canSafelyRemoveEtcdMember): deleting
// a Machine whose loss breaks quorum would take the control plane down, which is worse than an
// unhealthy Machine. Before it is initialized there is no cluster to keep: a first Machine that
// failed (kubeadm init never finished) is deleted, and the scale up creates a new first Machine,
// within spec.remediation's retries, as upstream does.
func remediationBlocked(s *scope, candidate *clusterv1.Machine) string {
	var deletingOthers []*clusterv1.Machine
	for _, m := range s.machines {
		if m != candidate && deleting(m) {
			deletingOthers = append(deletingOthers, m)
		}
	}
	switch {
	case len(deletingOthers) > 0:
		return fmt.Sprintf("Waiting for %s to be deleted before remediating Machine %s: the control plane changes one Machine at a time%s",
			machineNames(deletingOthers), candidate.Name, prefixed("; ", s.preTerminateWait))
	case !initialized(s) && !clusterInitialized(s.cluster):
		return ""
	case len(s.machines) <= 1:
		return fmt.Sprintf("Machine %s is the only control plane Machine: remediating it would delete the control plane; fix or replace it by hand", candidate.Name)
	}
	// A member counts as healthy only when a Machine that stays (a Node, not deleting, not
	// itself marked for remediation) runs it, on top of its own health.
	staying := map[string]bool{}
	for _, m := range s.machines {
		if m != candidate && hasNode(m) && !deleting(m) && !needsRemediation(m) {
			staying[m.Status.NodeRef.Name] = true
		}
	}
	return machineRemovalBlocked(s, candidate, "Remediating Machine "+candidate.Name,
		func(mem etcd.Member) bool { return staying[mem.Name] })
}

// remediationData is what the remediation annotations hold: the Machine remediated, when, and
// how many remediations in a row came before it (upstream's shape).
type remediationData struct {
	Machine    string      `json:"machine"`
	Timestamp  metav1.Time `json:"timestamp"`
	RetryCount int         `json:"retryCount"`
}

func (d remediationData) String() string {
	b, _ := json.Marshal(d) // a struct of strings, a time and an int always marshals
	return string(b)
}

// setLastRemediation shows the remediation in progress, else the latest one a control plane
// Machine carries as remediation-for, in status.lastRemediation (upstream's field). A record that
// cannot be read is skipped: Remediating already names it. With none the field keeps what it
// showed, as upstream's does.
func setLastRemediation(s *scope) {
	if !s.machinesRead {
		return
	}
	last, _ := readRemediationData(s.kcp.Annotations, controlplanev1.RemediationInProgressAnnotation)
	if last == nil {
		for _, m := range s.machines {
			d, err := readRemediationData(m.Annotations, controlplanev1.RemediationForAnnotation)
			if err == nil && d != nil && (last == nil || d.Timestamp.After(last.Timestamp.Time) ||
				(d.Timestamp.Equal(&last.Timestamp) && d.Machine < last.Machine)) {
				last = d
			}
		}
	}
	if last == nil || last.Machine == "" {
		return
	}
	s.kcp.Status.LastRemediation = controlplanev1.LastRemediationStatus{
		Machine: last.Machine, Time: last.Timestamp, RetryCount: ptr.To(int32(min(max(last.RetryCount, 0), math.MaxInt32)))}
}

// malformedRemediationData is the Remediating message for remediation annotation key on object
// that cannot be read: which annotation, what it must hold, and what to do (todo).
func malformedRemediationData(key, object string, err error, todo string) string {
	return fmt.Sprintf(`Remediation stopped: annotation %s on %s is malformed (%v); it must be JSON like {"machine":"<name>","timestamp":"2006-01-02T15:04:05Z","retryCount":0}: %s`,
		key, object, err, todo)
}

// readRemediationData parses the annotation key of annotations; nil when it is absent.
func readRemediationData(annotations map[string]string, key string) (*remediationData, error) {
	v, ok := annotations[key]
	if !ok {
		return nil, nil
	}
	d := &remediationData{}
	if err := json.Unmarshal([]byte(v), d); err != nil {
		return nil, fmt.Errorf("parsing %q as JSON: %w", v, err)
	}
	return d, nil
}

// defaultMinHealthyPeriod is spec.remediation.minHealthyPeriodSeconds when unset.
const defaultMinHealthyPeriod = time.Hour

// remediationRetry counts the remediation of candidate: a replacement Machine (it carries the
// remediation-for annotation) that fails within minHealthyPeriod of the remediation that created
// it is a retry of that one. It returns the retry count, or why remediation must not happen now:
// retries past spec.remediation.maxRetry stop it, and retryPeriodSeconds spaces retries out
// (wait > 0 says how long). A remediation-for annotation that cannot be read is an error.
func remediationRetry(kcp *controlplanev1.KubeadmControlPlane, candidate *clusterv1.Machine, now time.Time) (retry int, blocked string, wait time.Duration, err error) {
	prev, err := readRemediationData(candidate.Annotations, controlplanev1.RemediationForAnnotation)
	if err != nil {
		// A retry count nobody can read must not restart the count: maxRetry would never stop it.
		return 0, "", 0, err
	}
	if prev == nil {
		return 0, "", 0, nil // not a replacement: a first remediation
	}
	spec := kcp.Spec.Remediation
	minHealthy := defaultMinHealthyPeriod
	if spec.MinHealthyPeriodSeconds != nil {
		minHealthy = time.Duration(*spec.MinHealthyPeriodSeconds) * time.Second
	}
	if !now.Before(prev.Timestamp.Add(minHealthy)) {
		return 0, "", 0, nil // healthy long enough: an unrelated failure starts a new sequence
	}
	retry = prev.RetryCount + 1
	if spec.MaxRetry != nil && retry > int(*spec.MaxRetry) {
		return retry, fmt.Sprintf("Machine %s replaced Machine %s, remediated %d time(s) in a row already: spec.remediation.maxRetry (%d) is reached and remediation stops; fix the cause, then delete the Machine by hand",
			candidate.Name, prev.Machine, retry, *spec.MaxRetry), 0, nil
	}
	if p := time.Duration(ptr.Deref(spec.RetryPeriodSeconds, 0)) * time.Second; now.Before(prev.Timestamp.Add(p)) {
		until := prev.Timestamp.Add(p)
		return retry, fmt.Sprintf("Waiting until %s (spec.remediation.retryPeriodSeconds after the remediation of Machine %s) before remediating Machine %s",
			until.UTC().Format(time.RFC3339), prev.Machine, candidate.Name), until.Sub(now), nil
	}
	return retry, "", 0, nil
}

// reconcileRemediation deletes, at most once per pass, a control plane Machine a
// MachineHealthCheck marked; its etcd member goes at its pre-terminate hook (preterminate.go)
// and the scale up that follows replaces it. While remediation is blocked the rest of the
// reconcile goes on (a scale up may be what unblocks it) and the Remediating condition says why.
func (r *Reconciler) reconcileRemediation(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	clearRemediationInProgress(s)
	candidate := remediationCandidate(s.machines)
	s.remediationCandidate = candidate
	if candidate == nil {
		return ctrl.Result{}, false, nil
	}
	inProgress, err := readRemediationData(s.kcp.Annotations, controlplanev1.RemediationInProgressAnnotation)
	if err != nil {
		s.remediationBlocked = malformedRemediationData(controlplanev1.RemediationInProgressAnnotation, "KubeadmControlPlane "+s.kcp.Name, err,
			"remove it if no remediation is running (the replacement Machine is then created without a retry count)")
		return ctrl.Result{}, false, nil // the annotation's update brings us back
	}
	if inProgress != nil && inProgress.Machine != candidate.Name { // its own record: a deletion to retry
		s.remediationBlocked = fmt.Sprintf("Waiting for the replacement of Machine %s (remediated at %s) before remediating Machine %s: one remediation at a time",
			inProgress.Machine, inProgress.Timestamp.UTC().Format(time.RFC3339), candidate.Name)
		return ctrl.Result{}, false, nil // the scale up that follows clears it
	}
	if msg := remediationBlocked(s, candidate); msg != "" {
		s.remediationBlocked = msg
		return ctrl.Result{RequeueAfter: r.WaitRequeue}, false, nil
	}
	retry, msg, wait, err := remediationRetry(s.kcp, candidate, s.now)
	if err != nil {
		s.remediationBlocked = malformedRemediationData(controlplanev1.RemediationForAnnotation, "Machine "+candidate.Name, err,
			"remove it to remediate the Machine as a first remediation, or delete the Machine by hand")
		return ctrl.Result{}, false, nil // the annotation's update brings us back
	}
	if msg != "" {
		s.remediationBlocked = msg
		return ctrl.Result{RequeueAfter: wait}, false, nil
	}
	log := ctrl.LoggerFrom(ctx).WithValues("Machine", klog.KObj(candidate))
	// The owner takes OwnerRemediated over from the MachineHealthCheck before deleting: whoever
	// reads the Machine while it goes sees why.
	c := conditions.Stamp(candidate, conditions.False(clusterv1.MachineOwnerRemediatedCondition,
		machineOwnerRemediatedMachineDeletingReason, "Machine is deleting: the KubeadmControlPlane replaces it"), s.now)
	if err := conditions.Apply(ctx, r.Client, candidate, clusterv1.GroupVersion.String(), "Machine", []metav1.Condition{c},
		conditions.ApplyOptions{FieldManager: RemediationFieldManager}); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, false, fmt.Errorf("marking Machine %s as being remediated: %w", candidate.Name, err)
	}
	if inProgress == nil {
		if err := r.recordRemediation(ctx, s, remediationData{
			Machine: candidate.Name, Timestamp: metav1.NewTime(s.now.Truncate(time.Second)), RetryCount: retry}); err != nil {
			return ctrl.Result{}, false, err
		}
	}
	log.Info("Remediating an unhealthy control plane Machine: deleting it")
	if err := r.Client.Delete(ctx, candidate); err != nil && !apierrors.IsNotFound(err) {
		s.remediationBlocked = fmt.Sprintf("Deleting Machine %s failed: %v", candidate.Name, err)
		return ctrl.Result{}, false, fmt.Errorf("deleting Machine %s for remediation: %w", candidate.Name, err)
	}
	now := metav1.NewTime(s.now)
	candidate.DeletionTimestamp = &now
	s.remediated = candidate.Name
	return ctrl.Result{}, true, nil // its deletion (a Machine watch event) brings the scale up
}

// recordRemediation writes the in-progress record on the KubeadmControlPlane BEFORE the Machine
// is deleted, in its own patch: the replacement must find it (it carries it on as
// remediation-for, so that its own failure counts as a retry), and a deferred patch that fails
// after the deletion would lose it. s.kcp takes the new resourceVersion, so the deferred patch
// of this reconcile still applies.
func (r *Reconciler) recordRemediation(ctx context.Context, s *scope, d remediationData) error {
	orig := s.kcp.DeepCopy()
	patched := s.kcp.DeepCopy()
	if patched.Annotations == nil {
		patched.Annotations = map[string]string{}
	}
	patched.Annotations[controlplanev1.RemediationInProgressAnnotation] = d.String()
	if err := r.Client.Patch(ctx, patched, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("recording the remediation of Machine %s on KubeadmControlPlane %s: %w", d.Machine, s.kcp.Name, err)
	}
	if s.kcp.Annotations == nil {
		s.kcp.Annotations = map[string]string{}
	}
	s.kcp.Annotations[controlplanev1.RemediationInProgressAnnotation] = d.String()
	s.kcp.ResourceVersion = patched.ResourceVersion
	return nil
}

// clearRemediationInProgress drops the in-progress record once a Machine carries it as
// remediation-for: the replacement exists. Scale up drops it too when it creates the replacement;
// this catches a reconcile whose patch of the KubeadmControlPlane failed after that creation.
func clearRemediationInProgress(s *scope) {
	v, ok := s.kcp.Annotations[controlplanev1.RemediationInProgressAnnotation]
	if !ok {
		return
	}
	for _, m := range s.machines {
		if m.Annotations[controlplanev1.RemediationForAnnotation] == v {
			delete(s.kcp.Annotations, controlplanev1.RemediationInProgressAnnotation)
			return
		}
	}
}

// refreshRemediationInProgress reads the in-progress record live before a scale up: the write
// that recorded it may not have reached the cache yet (the remediated Machine's deletion event
// can come first), and the replacement must carry it.
func (r *Reconciler) refreshRemediationInProgress(ctx context.Context, s *scope) error {
	if _, ok := s.kcp.Annotations[controlplanev1.RemediationInProgressAnnotation]; ok {
		return nil
	}
	live := &controlplanev1.KubeadmControlPlane{}
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(s.kcp), live); err != nil {
		return fmt.Errorf("reading KubeadmControlPlane %s: %w", s.kcp.Name, err)
	}
	if v, ok := live.Annotations[controlplanev1.RemediationInProgressAnnotation]; ok {
		if s.kcp.Annotations == nil {
			s.kcp.Annotations = map[string]string{}
		}
		s.kcp.Annotations[controlplanev1.RemediationInProgressAnnotation] = v
	}
	return nil
}

// setRemediating reports remediation: true while a marked Machine waits or is being replaced.
func setRemediating(s *scope) {
	t := controlplanev1.KubeadmControlPlaneRemediatingCondition
	switch {
	case !s.machinesRead:
		return
	case s.remediated != "":
		conditions.Set(s.kcp, conditions.True(t, clusterv1.RemediatingReason, fmt.Sprintf("Deleting Machine %s to replace it", s.remediated)))
	case s.remediationCandidate != nil && s.remediationBlocked != "":
		conditions.Set(s.kcp, conditions.True(t, clusterv1.RemediatingReason, s.remediationBlocked))
	case s.remediationCandidate != nil:
		conditions.Set(s.kcp, conditions.True(t, clusterv1.RemediatingReason, fmt.Sprintf("Machine %s waits for remediation", s.remediationCandidate.Name)))
	default:
		conditions.Set(s.kcp, conditions.False(t, clusterv1.NotRemediatingReason, ""))
	}
}
