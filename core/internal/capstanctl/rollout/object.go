package rollout

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/core/internal/capstanctl/clusterclient"
)

// State is what rollout reads from an object: its pause and rollout settings, and its progress.
type State struct {
	Generation, ObservedGeneration int64
	// Desired is spec.replicas; nil while unset (e.g. before an autoscaler sets it).
	Desired *int64
	// Replicas, UpToDate, Available and Ready are status counts; absent counts are 0.
	Replicas, UpToDate, Available, Ready int64
	// PausedBy names what pauses the object ("spec.paused", "the cluster.x-k8s.io/paused
	// annotation"), empty when nothing does. PausedCondition is the message of a Paused condition
	// that is True, which also reports a paused Cluster.
	PausedBy        string
	PausedCondition *string
	// SpecPaused and Annotated are the two pause markers, each one kind's own.
	SpecPaused, Annotated bool
	Deleting              bool
	RolloutAfter          *time.Time
}

// get reads the object r names; a missing one is an error saying how to list them.
func get(ctx context.Context, c client.Reader, r Ref) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(r.Kind.GVK)
	if err := c.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: r.Name}, u); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%s not found: list them with 'kubectl get %ss -A' and pass the namespace with -n: %w",
				r, r.Kind.Resource, err)
		}
		return nil, clusterclient.Explain(err, r.String())
	}
	return u, nil
}

// Read returns the State of the object r names.
func Read(ctx context.Context, c client.Reader, r Ref) (*State, error) {
	u, err := get(ctx, c, r)
	if err != nil {
		return nil, err
	}
	return stateOf(r, u)
}

func stateOf(r Ref, u *unstructured.Unstructured) (*State, error) {
	var s *State
	var err error
	if r.Kind == MachineDeployment {
		s, err = machineDeploymentState(u)
	} else {
		s, err = controlPlaneState(u)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", r, err)
	}
	s.Generation = u.GetGeneration()
	s.Deleting = u.GetDeletionTimestamp() != nil
	_, s.Annotated = u.GetAnnotations()[clusterv1.PausedAnnotation]
	switch {
	case s.SpecPaused:
		s.PausedBy = "spec.paused"
	case s.Annotated:
		s.PausedBy = "the " + clusterv1.PausedAnnotation + " annotation"
	}
	return s, nil
}

func machineDeploymentState(u *unstructured.Unstructured) (*State, error) {
	md := &clusterv1.MachineDeployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, md); err != nil {
		return nil, err
	}
	s := &State{
		ObservedGeneration: md.Status.ObservedGeneration,
		Replicas:           int64(ptr.Deref(md.Status.Replicas, 0)),
		UpToDate:           int64(ptr.Deref(md.Status.UpToDateReplicas, 0)),
		Available:          int64(ptr.Deref(md.Status.AvailableReplicas, 0)),
		Ready:              int64(ptr.Deref(md.Status.ReadyReplicas, 0)),
		SpecPaused:         ptr.Deref(md.Spec.Paused, false),
		PausedCondition:    pausedCondition(md.Status.Conditions),
	}
	if md.Spec.Replicas != nil {
		s.Desired = ptr.To(int64(*md.Spec.Replicas))
	}
	if !md.Spec.Rollout.After.IsZero() {
		s.RolloutAfter = ptr.To(md.Spec.Rollout.After.Time)
	}
	return s, nil
}

// controlPlaneState reads a KubeadmControlPlane through the v1beta2 ControlPlane contract.
func controlPlaneState(u *unstructured.Unstructured) (*State, error) {
	cp := contract.ControlPlane()
	s := &State{}
	var err error
	if s.Desired, err = optional(cp.Replicas().Get(u)); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		field contract.Int64Field
		into  *int64
	}{
		{cp.StatusReplicas(), &s.Replicas},
		{cp.UpToDateReplicas(contract.V1Beta2), &s.UpToDate},
		{cp.AvailableReplicas(contract.V1Beta2), &s.Available},
		{cp.ReadyReplicas(), &s.Ready},
	} {
		v, err := optional(f.field.Get(u))
		if err != nil {
			return nil, err
		}
		*f.into = ptr.Deref(v, 0)
	}
	// observedGeneration, spec.rollout.after and conditions are KubeadmControlPlane's own fields.
	if s.ObservedGeneration, _, err = unstructured.NestedInt64(u.Object, "status", "observedGeneration"); err != nil {
		return nil, err
	}
	after, _, err := unstructured.NestedString(u.Object, "spec", "rollout", "after")
	if err != nil {
		return nil, err
	}
	if after != "" {
		t, err := time.Parse(time.RFC3339, after)
		if err != nil {
			return nil, fmt.Errorf("spec.rollout.after %q: %w", after, err)
		}
		s.RolloutAfter = &t
	}
	var st struct {
		Conditions []metav1.Condition `json:"conditions"`
	}
	if status, ok := u.Object["status"].(map[string]any); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(status, &st); err != nil {
			return nil, fmt.Errorf("status.conditions: %w", err)
		}
	}
	s.PausedCondition = pausedCondition(st.Conditions)
	return s, nil
}

// optional turns a missing contract field into nil.
func optional(v *int64, err error) (*int64, error) {
	if errors.Is(err, contract.ErrFieldNotFound) {
		return nil, nil
	}
	return v, err
}

func pausedCondition(conds []metav1.Condition) *string {
	if c := meta.FindStatusCondition(conds, clusterv1.PausedCondition); c != nil && c.Status == metav1.ConditionTrue {
		return ptr.To(c.Message)
	}
	return nil
}
