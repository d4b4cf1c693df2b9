// Package conditions reads and writes metav1.Condition lists on Capstan's own types
// and on provider objects read as unstructured. Setting a condition keeps its
// lastTransitionTime unless the status flips, and keeps the list sorted, so
// recomputing the same state produces the same object and therefore no write.
package conditions

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Getter is an object with conditions.
type Getter interface {
	GetGeneration() int64
	GetConditions() []metav1.Condition
}

// Setter is an object whose conditions can be written.
type Setter interface {
	Getter
	SetConditions([]metav1.Condition)
}

// Get returns the condition of the given type, or nil.
func Get(obj Getter, conditionType string) *metav1.Condition {
	return meta.FindStatusCondition(obj.GetConditions(), conditionType)
}

// IsTrue reports whether the condition exists with status True.
func IsTrue(obj Getter, conditionType string) bool {
	c := Get(obj, conditionType)
	return c != nil && c.Status == metav1.ConditionTrue
}

// Set adds or updates a condition, stamping the object's generation; the transition
// time moves only when the status changes.
func Set(obj Setter, c metav1.Condition) {
	conds := obj.GetConditions()
	c.ObservedGeneration = obj.GetGeneration()
	meta.SetStatusCondition(&conds, c)
	sort.SliceStable(conds, func(i, j int) bool { return conds[i].Type < conds[j].Type })
	obj.SetConditions(conds)
}

// Delete removes a condition.
func Delete(obj Setter, conditionType string) {
	conds := obj.GetConditions()
	meta.RemoveStatusCondition(&conds, conditionType)
	obj.SetConditions(conds)
}

// True, False and Unknown build conditions tersely.
func True(t, reason, message string) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: reason, Message: message}
}

// False builds a False condition.
func False(t, reason, message string) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionFalse, Reason: reason, Message: message}
}

// Unknown builds an Unknown condition.
func Unknown(t, reason, message string) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionUnknown, Reason: reason, Message: message}
}

// UnstructuredGet reads the condition of the given type from status.conditions of
// a provider object. A missing list or condition returns nil without error; a
// malformed list is an error naming the object.
func UnstructuredGet(u *unstructured.Unstructured, conditionType string) (*metav1.Condition, error) {
	raw, found, err := unstructured.NestedSlice(u.Object, "status", "conditions")
	if err != nil {
		return nil, fmt.Errorf("status.conditions of %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	if !found {
		return nil, nil
	}
	for _, item := range raw {
		m, ok := item.(map[string]any)
		if !ok || m["type"] != conditionType {
			continue
		}
		c := &metav1.Condition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, c); err != nil {
			return nil, fmt.Errorf("condition %s of %s %s/%s: %w", conditionType, u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
		return c, nil
	}
	return nil, nil
}

// MirrorOr copies condition sourceType of a provider object as condition
// targetType, prefixing the message with the object's kind and name (providers
// explain their own progress best). Without such a condition it returns fallback.
func MirrorOr(obj *unstructured.Unstructured, sourceType, targetType string, fallback metav1.Condition) metav1.Condition {
	if obj == nil {
		return fallback
	}
	c, err := UnstructuredGet(obj, sourceType)
	if err != nil || c == nil || c.Reason == "" {
		return fallback
	}
	msg := c.Message
	if msg != "" {
		msg = obj.GetKind() + " " + obj.GetName() + ": " + msg
	}
	return metav1.Condition{Type: targetType, Status: c.Status, Reason: c.Reason, Message: msg}
}
