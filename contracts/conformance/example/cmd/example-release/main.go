// Command example-release writes the conformance kit's example infrastructure provider as a
// clusterctl local repository: <dir>/infrastructure-example/<version>/ for each release
// (contracts/conformance/example/release). Its images come from make example-images.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"capstan.dev/contracts/conformance/example/release"
)

func main() {
	dir := flag.String("dir", "out", "repository base directory")
	flag.Parse()
	for _, v := range release.Versions {
		if err := release.Write(*dir, v); err != nil {
			fmt.Fprintln(os.Stderr, "example-release:", err)
			os.Exit(1)
		}
	}
	fmt.Printf("wrote %s/%s/{%s}\n", *dir, release.ProviderLabel, strings.Join(release.Versions, ","))
}
