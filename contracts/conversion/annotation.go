package conversion

import (
	"bytes"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DataAnnotation holds, as JSON, what the version an object is read at cannot express.
const DataAnnotation = "cluster.x-k8s.io/conversion-data"

// MarshalHubData records hub, without its metadata, in dst's DataAnnotation (upstream's
// format: the whole v1beta2 object with name, labels, annotations and the rest cleared).
func MarshalHubData(hub runtime.Object, dst metav1.Object) error {
	c := hub.DeepCopyObject()
	meta, ok := c.(metav1.Object)
	if !ok {
		return fmt.Errorf("recording conversion data: %T has no object metadata", hub)
	}
	clearMeta(meta)
	data, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("recording conversion data: %w", err)
	}
	// An empty metadata stanza says nothing; upstream strips it too.
	// Numbers stay json.Numbers: an int64 (a condition's observedGeneration) does not survive a
	// float64.
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err == nil {
		if md, ok := m["metadata"].(map[string]any); ok && len(md) == 0 {
			delete(m, "metadata")
			if data, err = json.Marshal(m); err != nil {
				return fmt.Errorf("recording conversion data: %w", err)
			}
		}
	}
	setAnnotation(dst, string(data))
	return nil
}

// MarshalData records data as JSON in dst's DataAnnotation.
func MarshalData(data any, dst metav1.Object) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("recording conversion data: %w", err)
	}
	setAnnotation(dst, string(raw))
	return nil
}

// UnmarshalData reads src's DataAnnotation into into and removes the annotation from src (it is
// consumed by the conversion that reads it). It reports whether the annotation was there; a
// value that is not JSON of the expected shape is an error naming the annotation, so that a
// hand-edited annotation is found rather than silently ignored.
func UnmarshalData(src metav1.Object, into any) (bool, error) {
	annotations := src.GetAnnotations()
	raw, ok := annotations[DataAnnotation]
	if !ok {
		return false, nil
	}
	delete(annotations, DataAnnotation)
	if len(annotations) == 0 {
		annotations = nil
	}
	src.SetAnnotations(annotations)
	if err := json.Unmarshal([]byte(raw), into); err != nil {
		return false, fmt.Errorf("metadata.annotations[%s] is not valid conversion data (%v): remove the annotation and write the object again", DataAnnotation, err)
	}
	return true, nil
}

func setAnnotation(dst metav1.Object, value string) {
	annotations := dst.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[DataAnnotation] = value
	dst.SetAnnotations(annotations)
}

func clearMeta(m metav1.Object) {
	m.SetName("")
	m.SetGenerateName("")
	m.SetNamespace("")
	m.SetSelfLink("")
	m.SetUID("")
	m.SetResourceVersion("")
	m.SetGeneration(0)
	m.SetCreationTimestamp(metav1.Time{})
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
	m.SetLabels(nil)
	m.SetAnnotations(nil)
	m.SetOwnerReferences(nil)
	m.SetFinalizers(nil)
	m.SetManagedFields(nil)
}
