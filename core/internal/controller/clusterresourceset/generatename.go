package clusterresourceset

import (
	"crypto/sha256"
	"encoding/json"
	"math/big"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Objects with metadata.generateName and no name are accepted, as upstream accepts them. Upstream
// creates them with generateName, so every attempt that fails part-way and is retried (or a
// process killed between creating and recording) leaves one more copy in the workload cluster.
// Here such an object gets a name the API server would also have made up (generateName cut to 58
// characters, then 5 characters of its alphabet), but derived from a hash of the
// ClusterResourceSet, the resource and the object's content: retrying creates nothing new
// (ApplyOnce finds it exists), and Reconcile can apply it like any named object. A changed
// object hashes to a new name, so Reconcile creates it anew and leaves the old one, as it leaves
// every object removed from a resource.

// generatedNameAlphabet and the lengths are the API server's (k8s.io/apiserver names.SimpleNameGenerator).
const (
	generatedNameAlphabet = "bcdfghjklmnpqrstvwxz2456789"
	generatedSuffixLength = 5
	maxGeneratedBase      = 63 - generatedSuffixLength
)

// nameGenerated gives every object that has a generateName but no name its name (see above).
// seed says which ClusterResourceSet and resource the objects come from; identical objects of
// one resource are told apart by their place among the identical ones.
func nameGenerated(objs []*unstructured.Unstructured, seed string) error {
	seen := map[[sha256.Size]byte]int{}
	for _, u := range objs {
		if u.GetName() != "" || u.GetGenerateName() == "" {
			continue
		}
		content, err := json.Marshal(u.Object) // map keys sorted: deterministic
		if err != nil {
			return err
		}
		key := sha256.Sum256(content)
		n := seen[key]
		seen[key]++
		h := sha256.New()
		for _, part := range [][]byte{[]byte(seed), content, big.NewInt(int64(n)).Bytes()} {
			h.Write(part)
			h.Write([]byte{0})
		}
		u.SetName(truncate(u.GetGenerateName(), maxGeneratedBase) + suffix(h.Sum(nil)))
	}
	return nil
}

// suffix spells the first bits of sum in the API server's generated-name alphabet.
func suffix(sum []byte) string {
	v := new(big.Int).SetBytes(sum)
	base := big.NewInt(int64(len(generatedNameAlphabet)))
	out := make([]byte, generatedSuffixLength)
	for i := range out {
		var d big.Int
		v.DivMod(v, base, &d)
		out[i] = generatedNameAlphabet[d.Int64()]
	}
	return string(out)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
