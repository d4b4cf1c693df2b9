package clusterresourceset

import (
	"strings"

	"k8s.io/utils/ptr"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/events"
)

// ControllerName is the Events' reportingController.
const ControllerName = "clusterresourceset-controller"

// The reasons of the Events on a ClusterResourceSet. Upstream records none for it; these
// follow its Successful/Failed<Verb> pattern.
const (
	ReasonSuccessfulApply = "SuccessfulApply"
	ReasonFailedApply     = "FailedApply"
)

const actionApply = "Apply"

// applyOutcome is what one reconcile applied to one Cluster, for its Events.
type applyOutcome struct {
	applied []string
	// failed are the resources whose apply failed for the first time: a failure the binding
	// already records (same content) is being retried, and was recorded when it happened.
	failed []string
	errs   []string
}

// add notes one resource's outcome; prev is its binding entry before this apply.
func (o *applyOutcome) add(res resource, prev addonsv1.ResourceSetBinding, err error) {
	name := res.ref.Kind + " " + res.ref.Name
	if err == nil {
		o.applied = append(o.applied, name)
		return
	}
	for _, rb := range prev.Resources {
		if rb.ResourceRef == res.ref && !ptr.Deref(rb.Applied, true) && rb.Hash == res.manifests.hash {
			return
		}
	}
	o.failed = append(o.failed, name)
	o.errs = append(o.errs, name+": "+err.Error())
}

// record records the outcome on the ClusterResourceSet, naming the Cluster; nothing when
// nothing was applied and no new failure happened, as on every reconcile of a steady set.
func (r *Reconciler) recordApply(crs *addonsv1.ClusterResourceSet, cluster *clusterv1.Cluster, o applyOutcome) {
	if len(o.applied) > 0 {
		r.Recorder.Eventf(crs, cluster, events.Normal, ReasonSuccessfulApply, actionApply,
			"Applied %s to Cluster %s", strings.Join(o.applied, ", "), cluster.Name)
	}
	if len(o.failed) > 0 {
		r.Recorder.Eventf(crs, cluster, events.Warning, ReasonFailedApply, actionApply,
			"Failed to apply to Cluster %s: %s", cluster.Name, strings.Join(o.errs, "; "))
	}
}
