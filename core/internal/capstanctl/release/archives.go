/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package release

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"capstan.dev/contracts/image"
)

// Errors an ImageSaver's error wraps, so that a caller can say what to do about each.
var (
	// ErrImageNotFound: the engine has no such image.
	ErrImageNotFound = errors.New("image not found")
	// ErrNoEngine: no engine answers, or there is no docker command.
	ErrNoEngine = errors.New("no Docker Engine")
)

// ImageSaver writes an image from a container engine's store to a file.
type ImageSaver interface {
	// Save writes ref, as the engine stores it, to path as a `docker save` archive; an image
	// the engine lacks is an error wrapping ErrImageNotFound.
	Save(ctx context.Context, ref, path string) error
}

// DockerCLI saves images with the docker command line. The core module has no Docker Engine
// client (only the docker provider talks to the engine through one), and the image recipes
// (make images) already drive the same CLI, so the release does too.
type DockerCLI struct {
	// Binary is the docker command; "docker" from PATH when empty.
	Binary string
}

// Save inspects ref first: `docker image inspect` says "No such image" for a missing image
// on every engine version, while `docker save`'s wording has changed between versions.
func (d DockerCLI) Save(ctx context.Context, ref, path string) error {
	if _, err := d.run(ctx, "image", "inspect", "--format", "{{.Id}}", ref); err != nil {
		if strings.Contains(err.Error(), "No such image") {
			return fmt.Errorf("%w: %s is not in the Docker Engine", ErrImageNotFound, ref)
		}
		return err
	}
	// A failed or interrupted save must not leave a truncated archive under the final name.
	tmp := path + ".tmp"
	if _, err := d.run(ctx, "image", "save", "--output", tmp, ref); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	// docker save writes its output file 0600; a release artifact is read by whoever serves or
	// loads the repository, as the components next to it are.
	if err := os.Chmod(tmp, 0o644); err != nil { //nolint:gosec // a public release artifact
		return fmt.Errorf("saving image %s: %w", ref, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("saving image %s: %w", ref, err)
	}
	return nil
}

func (d DockerCLI) run(ctx context.Context, args ...string) ([]byte, error) {
	bin := d.Binary
	if bin == "" {
		bin = "docker"
	}
	var stderr bytes.Buffer
	c := exec.CommandContext(ctx, bin, args...)
	c.Stderr = &stderr
	out, err := c.Output()
	msg := strings.TrimSpace(stderr.String())
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: no docker command (%v): run 'make docker-up' to install and start one", ErrNoEngine, err)
	case err != nil && strings.Contains(msg, "Cannot connect to the Docker daemon"):
		return nil, fmt.Errorf("%w answers: docker %s: %s: run 'make docker-up' to start one", ErrNoEngine, strings.Join(args, " "), msg)
	case err != nil:
		return nil, fmt.Errorf("docker %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return out, nil
}

// archiveName is the file an image's archive is written to in its provider's version
// directory: the last element of its repository, which the version directory already tags
// (capstan/core-manager:v0.1.0 → core-manager.tar).
func archiveName(ref string) string {
	return path.Base(image.Parse(ref).Name) + ".tar"
}

// saveArchives writes an archive of each image into vdir, each image once, and returns the
// files written. Two images of one provider whose archives would share a name are refused
// rather than one overwriting the other.
func saveArchives(ctx context.Context, saver ImageSaver, vdir, label, version string, images []string) ([]string, error) {
	var written []string
	byFile := map[string]string{}
	for _, ref := range images {
		name := archiveName(ref)
		if other, ok := byFile[name]; ok {
			if other == ref {
				continue
			}
			return written, fmt.Errorf("provider %s: images %s and %s would both be archived as %s", label, other, ref, name)
		}
		byFile[name] = ref
		if err := os.MkdirAll(vdir, 0o755); err != nil {
			return written, fmt.Errorf("creating %s: %w", vdir, err)
		}
		file := filepath.Join(vdir, name)
		if err := saver.Save(ctx, ref, file); err != nil {
			if errors.Is(err, ErrImageNotFound) {
				return written, fmt.Errorf("provider %s: %w: build it with 'make images VERSION=%s'", label, err, version)
			}
			return written, fmt.Errorf("provider %s: saving image %s: %w", label, ref, err)
		}
		written = append(written, file)
	}
	return written, nil
}
