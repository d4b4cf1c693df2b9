// Command capstanctl is the command line of Capstan: it generates workload
// cluster manifests, describes, reads kubeconfigs of and deletes workload
// clusters on a management cluster. Everything but process setup lives in
// capstan.dev/core/internal/capstanctl/cmd.
//
// Set the release version at link time:
//
//	go build -ldflags "-X capstan.dev/core/internal/capstanctl/version.Version=v0.1.0" ./cmd/capstanctl
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"capstan.dev/core/internal/capstanctl/cmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cmd.Execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
