// Command metricsconfig writes config/metrics/crd-metrics-config.yaml, the kube-state-metrics
// configuration for Capstan's kinds (package metricsconfig). make generate runs it from the
// repository root.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"capstan.dev/hack/tools/internal/metricsconfig"
)

func main() {
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	changed, err := metricsconfig.Write(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "metricsconfig:", err)
		os.Exit(1)
	}
	if changed {
		fmt.Println("metricsconfig: wrote", filepath.Join(*root, metricsconfig.ConfigPath))
	}
}
