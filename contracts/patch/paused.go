package patch

import (
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// keepOnlyPausedConditionWhilePaused resets obj to the snapshot plus obj's Paused
// condition when that condition is True. It lives here, in the one write path all
// controllers share, so no controller can forget the rule: an object that is paused
// is reported as paused and otherwise left exactly as it was read.
func (h *Helper) keepOnlyPausedConditionWhilePaused(obj client.Object) error {
	getter, ok := obj.(conditions.Getter)
	if !ok {
		return nil // no conditions (an unstructured object): nothing says it is paused
	}
	paused := conditions.Get(getter, clusterv1.PausedCondition)
	if paused == nil || paused.Status != metav1.ConditionTrue {
		return nil
	}
	restored, ok := h.before.DeepCopyObject().(conditions.Setter)
	if !ok {
		return nil
	}
	conditions.Set(restored, *paused)
	dst, src := reflect.ValueOf(obj), reflect.ValueOf(restored)
	if dst.Kind() != reflect.Pointer || dst.Type() != src.Type() {
		return fmt.Errorf("keeping only the Paused condition of %s: snapshot is a %T", describe(obj), restored)
	}
	dst.Elem().Set(src.Elem())
	return nil
}
