package contract_test

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"capstan.dev/contracts/contract"
)

// FuzzAccessors_NeverPanic feeds arbitrary JSON to every accessor, under both
// contracts and an unknown one: provider objects come from other people's
// controllers, and a panic would take the core's manager down. `go test` runs the
// seeds; `go test -fuzz=FuzzAccessors_NeverPanic` explores further.
func FuzzAccessors_NeverPanic(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `[]`, `"x"`, `{"spec":"x","status":"x"}`, `{"spec":[],"status":1}`, `{"spec":null,"status":null}`,
		`{"status":{"initialization":"x","failureDomains":{"a":"x","b":null}}}`,
		`{"status":{"failureDomains":[null,1,{"name":1},{"name":"a","attributes":{"k":[]}}]}}`,
		`{"status":{"addresses":[null,{},{"type":1}]}}`,
		`{"spec":{"controlPlaneEndpoint":{"port":1e300,"host":{}}}}`,
		`{"spec":{"replicas":-1.5,"machineTemplate":{"spec":{"infrastructureRef":{"apiVersion":"/"}},"infrastructureRef":{"apiVersion":"a/b/c","kind":"K","name":"n"}}}}`,
		`{"metadata":"x","kind":[]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var content map[string]any
		if err := json.Unmarshal(data, &content); err != nil {
			return // not an object: nothing an API server could hand us
		}
		for _, v := range []contract.ContractVersion{contract.V1Beta2, contract.V1Beta1, "bogus"} {
			for _, a := range everyAccessor(v) {
				_ = a.get(&unstructured.Unstructured{Object: content})
				cp := (&unstructured.Unstructured{Object: content}).DeepCopy()
				_ = a.set(cp)
			}
		}
	})
}
