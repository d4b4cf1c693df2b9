// Command cniaddon writes the CNI ClusterResourceSet block into capstanctl's templates and the
// examples (package cniaddon). make generate runs it from the repository root.
package main

import (
	"flag"
	"fmt"
	"os"

	"capstan.dev/hack/tools/internal/cniaddon"
)

func main() {
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	changed, err := cniaddon.Write(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cniaddon:", err)
		os.Exit(1)
	}
	for _, p := range changed {
		fmt.Println("cniaddon: wrote", p)
	}
}
