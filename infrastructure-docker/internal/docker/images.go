package docker

import (
	"context"
	"fmt"
	"io"

	"github.com/docker/docker/client"
)

// HasImage reports whether the engine holds image.
func (r *Runtime) HasImage(ctx context.Context, image string) (bool, error) {
	_, err := r.cli.ImageInspect(ctx, image)
	if client.IsErrNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inspecting image %s: %w", image, err)
	}
	return true, nil
}

// SaveImage streams image from the engine as a `docker save` archive, which containerd's
// `ctr images import` reads. The caller closes the stream. It wraps ErrImageNotFound when the
// engine does not hold image: the provider never pulls. Images are read, never changed, so they
// need not carry our labels.
func (r *Runtime) SaveImage(ctx context.Context, image string) (io.ReadCloser, error) {
	// Asked first, so that a missing image is ErrImageNotFound rather than an engine error.
	if ok, err := r.HasImage(ctx, image); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("image %s: %w", image, ErrImageNotFound)
	}
	rc, err := r.cli.ImageSave(ctx, []string{image})
	if err != nil {
		return nil, fmt.Errorf("saving image %s: %w", image, err)
	}
	return rc, nil
}
