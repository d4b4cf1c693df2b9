// Command crdrules writes, for each provider, the ValidatingAdmissionPolicies that apply the
// v1beta2 CEL rules of its CRDs to writes made at v1beta1 (<provider>/config/admission/
// v1beta1-rules.yaml; the core's in contracts/config/admission). make generate runs it from the
// repository root after controller-gen and before components.
package main

import (
	"flag"
	"fmt"
	"os"

	"capstan.dev/hack/tools/internal/crdrules"
)

func main() {
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	written, err := crdrules.Write(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crdrules:", err)
		os.Exit(1)
	}
	for _, p := range written {
		fmt.Println("crdrules: wrote", p)
	}
}
