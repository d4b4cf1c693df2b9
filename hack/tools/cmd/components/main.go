// Command components renders each provider's config/default kustomize base into the
// components files capstanctl embeds (core/internal/capstanctl/components/<provider>.yaml).
// make generate runs it from the repository root after controller-gen.
package main

import (
	"flag"
	"fmt"
	"os"

	"capstan.dev/hack/tools/internal/components"
)

func main() {
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	written, err := components.Write(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "components:", err)
		os.Exit(1)
	}
	for _, p := range written {
		fmt.Println("components: wrote", p)
	}
}
