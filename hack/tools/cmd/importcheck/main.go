// Command importcheck fails when a Capstan provider module depends on another
// provider module, or when capstan.dev/contracts depends on any provider. Run it from
// the repository root (make verify does).
package main

import (
	"context"
	"fmt"
	"os"

	"capstan.dev/hack/tools/internal/importboundary"
)

func main() {
	providers := []importboundary.Module{
		{Path: "capstan.dev/core", Dir: "core"},
		{Path: "capstan.dev/bootstrap-kubeadm", Dir: "bootstrap-kubeadm"},
		{Path: "capstan.dev/infrastructure-docker", Dir: "infrastructure-docker"},
	}
	shared := []importboundary.Module{{Path: "capstan.dev/contracts", Dir: "contracts"}}
	violations, err := importboundary.Check(context.Background(), ".", providers, shared)
	if err != nil {
		fmt.Fprintln(os.Stderr, "importcheck:", err)
		os.Exit(2)
	}
	for _, v := range violations {
		fmt.Fprintln(os.Stderr, "importcheck:", v)
	}
	if len(violations) > 0 {
		os.Exit(1)
	}
	fmt.Println("importcheck: providers import only capstan.dev/contracts")
}
