// Command release writes Capstan's providers as a clusterctl local repository (package
// capstan.dev/core/internal/capstanctl/release), with each provider's images saved from the
// local Docker Engine as `docker save` archives unless --images=false; make release builds
// the images with the release's tag and runs it into out/.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"capstan.dev/core/internal/capstanctl/release"
)

func main() {
	dir := flag.String("dir", "out", "directory to write the repository into")
	version := flag.String("version", "", "release version, a semantic version such as v0.1.0")
	images := flag.Bool("images", true, "save each provider's images from the local Docker Engine as docker save archives beside its components")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var saver release.ImageSaver
	if *images {
		saver = release.DockerCLI{}
	}
	files, err := release.Write(ctx, *dir, *version, saver)
	for _, f := range files {
		fmt.Println("release: wrote", f)
	}
	if err != nil {
		if errors.Is(err, release.ErrImageNotFound) || errors.Is(err, release.ErrNoEngine) {
			err = fmt.Errorf("%w, or pass --images=false to write the repository without image archives", err)
		}
		fmt.Fprintln(os.Stderr, "release:", err)
		stop()
		os.Exit(1)
	}
}
