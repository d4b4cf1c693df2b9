package install

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// imagePullReasons are container waiting reasons that mean the node has not got the image.
var imagePullReasons = []string{"ErrImagePull", "ImagePullBackOff", "ErrImageNeverPull", "InvalidImageName"}

// WaitDeployments waits until every Deployment in objs has rolled out and is available,
// printing a line whenever one's state changes. On timeout the error names, for each
// Deployment still waiting, its conditions and its pods' waiting reasons, and says what to
// do next.
func (a *Applier) WaitDeployments(ctx context.Context, objs []*unstructured.Unstructured, timeout time.Duration) error {
	var keys []client.ObjectKey
	for _, o := range objs {
		if o.GetKind() == "Deployment" {
			keys = append(keys, client.ObjectKeyFromObject(o))
		}
	}
	last := map[client.ObjectKey]string{}
	err := poll(ctx, timeout, a.interval(), func() (bool, error) {
		done := true
		for _, key := range keys {
			d := &appsv1.Deployment{}
			if err := a.Client.Get(ctx, key, d); err != nil {
				return false, explain(err, "reading Deployment "+key.String())
			}
			state, ok := RolloutState(d)
			if state != last[key] {
				fmt.Fprintf(a.out(), "Deployment %s: %s\n", key, state)
				last[key] = state
			}
			done = done && ok
		}
		return done, nil
	})
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	var reports []string
	for _, key := range keys {
		d := &appsv1.Deployment{}
		if err := a.Client.Get(ctx, key, d); err != nil {
			reports = append(reports, fmt.Sprintf("Deployment %s: %v", key, err))
			continue
		}
		if _, ok := RolloutState(d); ok {
			continue
		}
		pods := &corev1.PodList{}
		var podErr error
		if sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil {
			podErr = a.Client.List(ctx, pods, client.InNamespace(d.Namespace), client.MatchingLabelsSelector{Selector: sel})
		}
		reports = append(reports, Diagnose(d, pods.Items, podErr))
	}
	return fmt.Errorf("the managers are not available: %w:\n%s", err, strings.Join(reports, "\n"))
}

// RolloutState summarizes a Deployment's rollout in one line and says whether it is
// complete: the controller has seen the latest spec, every replica is updated and available,
// no old replica is left, and the Available condition is True.
func RolloutState(d *appsv1.Deployment) (string, bool) {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	if s.ObservedGeneration < d.Generation {
		return "waiting for the deployment controller to see the latest spec", false
	}
	summary := fmt.Sprintf("%d/%d updated, %d/%d available", s.UpdatedReplicas, want, s.AvailableReplicas, want)
	available := condition(d, appsv1.DeploymentAvailable)
	ok := s.UpdatedReplicas == want && s.Replicas == want && s.AvailableReplicas == want &&
		available != nil && available.Status == corev1.ConditionTrue
	if ok {
		return summary + ": available", true
	}
	if available != nil && available.Status != corev1.ConditionTrue {
		summary += fmt.Sprintf(" (Available %s: %s)", available.Status, available.Reason)
	}
	return summary, false
}

func condition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}

// Diagnose says why Deployment d is not available: its conditions, each pod's phase and
// waiting containers, and the next step for the usual causes.
func Diagnose(d *appsv1.Deployment, pods []corev1.Pod, podErr error) string {
	var b strings.Builder
	state, _ := RolloutState(d)
	fmt.Fprintf(&b, "Deployment %s/%s: %s", d.Namespace, d.Name, state)
	var hints []string
	if d.Status.ObservedGeneration == 0 && len(d.Status.Conditions) == 0 {
		hints = append(hints, "no deployment controller has looked at it: the cluster runs none (the local management plane of "+
			"'make mgmt-up' has no kube-controller-manager deployment controller, kubelet or scheduler): "+
			"run the managers as local processes with 'capstanctl init --dev' there")
	}
	for _, c := range d.Status.Conditions {
		fmt.Fprintf(&b, "\n  condition %s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message)
	}
	if podErr != nil {
		fmt.Fprintf(&b, "\n  pods: %v", podErr)
	} else if len(pods) == 0 && d.Status.ObservedGeneration > 0 {
		fmt.Fprintf(&b, "\n  no pods (see 'kubectl describe replicaset -n %s')", d.Namespace)
	}
	images := map[string]bool{}
	for _, p := range pods {
		fmt.Fprintf(&b, "\n  pod %s: %s", p.Name, p.Status.Phase)
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				fmt.Fprintf(&b, ", not scheduled: %s: %s", c.Reason, c.Message)
			}
		}
		for _, cs := range slices.Concat(p.Status.InitContainerStatuses, p.Status.ContainerStatuses) {
			switch {
			case cs.State.Waiting != nil:
				w := cs.State.Waiting
				fmt.Fprintf(&b, "\n    container %s waiting: %s: %s", cs.Name, w.Reason, w.Message)
				if slices.Contains(imagePullReasons, w.Reason) {
					images[cs.Image] = true
				}
				if w.Reason == "CrashLoopBackOff" {
					hints = append(hints, fmt.Sprintf("read why it exits with 'kubectl logs -n %s %s -c %s --previous'", p.Namespace, p.Name, cs.Name))
				}
			case cs.State.Terminated != nil:
				t := cs.State.Terminated
				fmt.Fprintf(&b, "\n    container %s terminated: %s (exit %d): %s", cs.Name, t.Reason, t.ExitCode, t.Message)
			case !cs.Ready:
				fmt.Fprintf(&b, "\n    container %s running, not ready (restarts %d)", cs.Name, cs.RestartCount)
			}
		}
	}
	for _, img := range slices.Sorted(maps.Keys(images)) {
		hints = append(hints, fmt.Sprintf("the node has no image %s: build it with 'make images' and load it into the "+
			"management cluster's nodes (no registry is used), or pass the --image-tag you built", img))
	}
	for _, h := range hints {
		fmt.Fprintf(&b, "\n  next: %s", h)
	}
	return b.String()
}
