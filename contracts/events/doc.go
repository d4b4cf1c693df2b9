// Package events is how Capstan's managers record Kubernetes Events (events.k8s.io/v1, through
// controller-runtime's recorder): the decisions an operator looks for with `kubectl events`
// (a Machine created, a Node drained, a remediation). It owns the recorder the reconcilers
// hold and the limits around it; it knows no controller and chooses no reason.
//
// controller-runtime's events.k8s.io recorder aggregates repeats of one Event into a series
// (one create, one patch, then counts in memory), but only when the regarding reference is
// identical, and that reference carries the object's resourceVersion, which changes with
// every status patch; and unlike the core/v1 recorder it has no spam filter. The Recorder
// here drops the resourceVersion so repeats aggregate, and limits each object to a burst of
// 25 Events refilled at one per five minutes (the core/v1 recorder's defaults), so that a
// controller stuck in a loop of failures cannot flood the API server.
package events
