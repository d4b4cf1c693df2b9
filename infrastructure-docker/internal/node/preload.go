package node

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"capstan.dev/infrastructure-docker/internal/docker"
)

// preLoadedPath lists, one a line, the images already imported into the node's containerd. It
// is on the node's /var volume, with containerd's store, so that neither a restarted controller
// nor a restarted container imports an image twice (upstream CAPD remembers it in the
// DockerMachine's spec.bootstrapped instead, which a pool instance does not have).
const preLoadedPath = "/var/lib/capstan/preloaded-images"

// preLoadRetry is how soon a missing or failed image is tried again: nothing announces that a
// user built or loaded an image (the provider watches container events only).
const preLoadRetry = 30 * time.Second

// preLoadImages imports each of o.PreLoadImages that the node has not imported yet from the
// Docker Engine into the node's containerd, in the namespace the kubelet's CRI uses (k8s.io),
// as upstream CAPD does: `docker save` streamed into `ctr images import -`. It returns nil once
// every image is in; otherwise the status the bootstrap waits in. Nothing is pulled: an image
// that is not on the engine holds the bootstrap until a user builds or loads it. It runs before
// the bootstrap takes its lock, so at most once per node: the controllers stop asking once the
// bootstrap started.
func (p *Provisioner) preLoadImages(ctx context.Context, c *docker.Container, o BootstrapOptions) (*BootstrapStatus, error) {
	res, err := p.Docker.Exec(ctx, c, nil, "/bin/sh", "-c", `cat "$1" 2>/dev/null || true`, "sh", preLoadedPath)
	if err != nil {
		return nil, fmt.Errorf("reading %s in %s: %w", preLoadedPath, c.Name, err)
	}
	done := map[string]bool{}
	for _, line := range strings.Split(res.Stdout, "\n") {
		done[line] = true
	}
	var todo, missing []string
	for _, image := range o.PreLoadImages {
		if done[image] {
			continue
		}
		ok, err := p.Docker.HasImage(ctx, image)
		if err != nil {
			return nil, err
		}
		if !ok {
			missing = append(missing, image)
		}
		todo = append(todo, image)
	}
	if len(missing) > 0 {
		return preLoadImageNotFound(missing, o.PreLoadImagesField), nil
	}
	for _, image := range todo {
		if st, err := p.importImage(ctx, c, image, o.PreLoadImagesField); err != nil || st != nil {
			return st, err
		}
	}
	return nil, nil
}

// importImage streams image from the engine into the node's containerd and records it in
// preLoadedPath, in one exec.
func (p *Provisioner) importImage(ctx context.Context, c *docker.Container, image, field string) (*BootstrapStatus, error) {
	ctrl.LoggerFrom(ctx).Info("Importing an image into the node's containerd", "container", c.Name, "image", image)
	archive, err := p.Docker.SaveImage(ctx, image)
	if errors.Is(err, docker.ErrImageNotFound) {
		return preLoadImageNotFound([]string{image}, field), nil // removed meanwhile
	}
	if err != nil {
		return nil, err
	}
	defer archive.Close()
	script := `ctr -n k8s.io images import - && mkdir -p "$(dirname "$1")" && printf '%s\n' "$2" >> "$1"`
	res, err := p.Docker.Exec(ctx, c, archive, "/bin/sh", "-c", script, "sh", preLoadedPath, image)
	if err != nil {
		return nil, fmt.Errorf("importing image %s into %s: %w", image, c.Name, err)
	}
	if res.ExitCode != 0 {
		return &BootstrapStatus{Phase: BootstrapPreLoadFailed, RequeueAfter: preLoadRetry, Message: fmt.Sprintf(
			"Importing image %s of %s into the node's containerd (ctr -n k8s.io images import) exited with %d; the node image needs containerd's ctr; retrying every %s: %s",
			image, field, res.ExitCode, preLoadRetry, tail(res.Stderr+res.Stdout))}, nil
	}
	return nil, nil
}

func preLoadImageNotFound(images []string, field string) *BootstrapStatus {
	what := fmt.Sprintf("Image %s of %s is", images[0], field)
	if len(images) > 1 {
		what = fmt.Sprintf("Images %s of %s are", strings.Join(images, ", "), field)
	}
	return &BootstrapStatus{Phase: BootstrapPreLoadImageNotFound, RequeueAfter: preLoadRetry, Message: what +
		" not on the Docker Engine, and nothing is pulled: build it or `docker load` it on the Docker host, or remove it from " + field +
		"; the bootstrap waits for it"}
}

// tail keeps the end of a command's output for a message.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > outputTail {
		s = "..." + s[len(s)-outputTail:]
	}
	return s
}
