package mdrollout

import (
	"sort"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Revision is the revision annotation of obj, 0 when absent or malformed.
func Revision(obj metav1.Object) int64 {
	v, err := strconv.ParseInt(obj.GetAnnotations()[clusterv1.RevisionAnnotation], 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// SortByRevision orders a MachineDeployment's MachineSets oldest revision first, then oldest, then by name.
func SortByRevision(sets []*clusterv1.MachineSet) {
	sort.SliceStable(sets, func(i, j int) bool {
		a, b := sets[i], sets[j]
		if ra, rb := Revision(a), Revision(b); ra != rb {
			return ra < rb
		}
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
}

// RolloutAfter returns spec.rollout.after when it has passed, nil otherwise.
func RolloutAfter(md *clusterv1.MachineDeployment, now time.Time) *time.Time {
	after := md.Spec.Rollout.After
	if after.IsZero() || after.After(now) {
		return nil
	}
	t := after.Time
	return &t
}

// IsCurrent reports whether ms has the MachineDeployment's current template: same rollout
// fields and, once spec.rollout.after has passed, created for or after it. A MachineSet named
// for that rollout.after counts as created for it even if the API server's clock stamped it a
// little earlier than this controller's clock.
func IsCurrent(md *clusterv1.MachineDeployment, ms *clusterv1.MachineSet, templateHash string, now time.Time) bool {
	if TemplateHash(&ms.Spec.Template) != templateHash {
		return false
	}
	after := RolloutAfter(md, now)
	if after == nil || !ms.CreationTimestamp.Time.Before(*after) {
		return true
	}
	return ms.Name == MachineSetName(md, MachineSetSuffix(templateHash, after))
}

// MachineSetName is the name of a MachineDeployment's MachineSet with the given suffix.
func MachineSetName(md *clusterv1.MachineDeployment, suffix string) string {
	const maxName = 253
	prefix := md.Name
	if len(prefix)+1+len(suffix) > maxName {
		prefix = prefix[:maxName-1-len(suffix)]
	}
	return prefix + "-" + suffix
}
