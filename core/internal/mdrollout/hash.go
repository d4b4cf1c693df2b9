package mdrollout

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/rand"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// rolloutFields are the fields of a Machine template whose change replaces Machines. Everything
// else in the template (labels, annotations, minReadySeconds, readinessGates, deletion timeouts)
// is changed in place on the existing MachineSet and Machines, and replicas are not part of the
// template at all: changing them scales, it never rolls out (upstream #12990).
type rolloutFields struct {
	ClusterName       string                                     `json:"clusterName"`
	Bootstrap         clusterv1.Bootstrap                        `json:"bootstrap"`
	InfrastructureRef clusterv1.ContractVersionedObjectReference `json:"infrastructureRef"`
	Version           string                                     `json:"version,omitempty"`
	FailureDomain     string                                     `json:"failureDomain,omitempty"`
}

// TemplateHash is a short, stable hash of the rollout fields of a Machine template. Two templates
// with the same hash produce interchangeable Machines.
func TemplateHash(tmpl *clusterv1.MachineTemplateSpec) string {
	data, err := json.Marshal(rolloutFields{
		ClusterName:       tmpl.Spec.ClusterName,
		Bootstrap:         tmpl.Spec.Bootstrap,
		InfrastructureRef: tmpl.Spec.InfrastructureRef,
		Version:           tmpl.Spec.Version,
		FailureDomain:     tmpl.Spec.FailureDomain,
	})
	if err != nil { // plain strings and pointers to strings cannot fail to marshal
		panic(fmt.Sprintf("marshalling the rollout fields of a Machine template: %v", err))
	}
	return shortHash(data)
}

// MachineSetSuffix is the suffix of the name and the machine-template-hash label of a new
// MachineSet: the template hash or, for a MachineSet created because spec.rollout.after has
// passed, a hash of the template hash and that time, so that the replacement of a MachineSet with
// the same template gets a name of its own. Both are deterministic, so a MachineSet whose creation
// the cache has not observed yet is found again by name instead of being created twice.
func MachineSetSuffix(templateHash string, rolloutAfter *time.Time) string {
	if rolloutAfter == nil {
		return templateHash
	}
	return shortHash([]byte(templateHash + "/" + rolloutAfter.UTC().Format(time.RFC3339)))
}

func shortHash(data []byte) string {
	h := fnv.New32a()
	_, _ = h.Write(data)
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}
