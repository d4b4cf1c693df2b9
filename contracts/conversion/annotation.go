package conversion

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DataAnnotation holds, as sparse JSON (sparse.go), what the version an object is read at
// cannot express.
const DataAnnotation = "cluster.x-k8s.io/conversion-data"

// takeData removes DataAnnotation from meta (it is consumed by the conversion that reads it) and
// returns its value.
func takeData(meta metav1.Object) (string, bool) {
	annotations := meta.GetAnnotations()
	raw, ok := annotations[DataAnnotation]
	if !ok {
		return "", false
	}
	delete(annotations, DataAnnotation)
	if len(annotations) == 0 {
		annotations = nil
	}
	meta.SetAnnotations(annotations)
	return raw, true
}

// invalidData names the annotation in the error of a value that is not JSON of the expected
// shape, so that a hand-edited annotation is found rather than silently ignored.
func invalidData(err error) error {
	return fmt.Errorf("metadata.annotations[%s] is not valid conversion data (%v): remove the annotation and write the object again", DataAnnotation, err)
}

func setAnnotation(dst metav1.Object, value string) {
	annotations := dst.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[DataAnnotation] = value
	dst.SetAnnotations(annotations)
}
