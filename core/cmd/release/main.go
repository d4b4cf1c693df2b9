// Command release writes Capstan's providers as a clusterctl local repository (package
// capstan.dev/core/internal/capstanctl/release); make release runs it into out/.
package main

import (
	"flag"
	"fmt"
	"os"

	"capstan.dev/core/internal/capstanctl/release"
)

func main() {
	dir := flag.String("dir", "out", "directory to write the repository into")
	version := flag.String("version", "", "release version, a semantic version such as v0.1.0")
	flag.Parse()
	files, err := release.Write(*dir, *version)
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
	for _, f := range files {
		fmt.Println("release: wrote", f)
	}
}
