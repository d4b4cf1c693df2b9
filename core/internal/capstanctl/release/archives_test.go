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
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/components"
)

// fakeSaver writes the reference it was asked for as the archive's content, and refuses the
// images in missing as an engine without them would.
type fakeSaver struct {
	saved   []string
	missing map[string]bool
}

func (f *fakeSaver) Save(_ context.Context, ref, path string) error {
	if f.missing[ref] {
		return fmt.Errorf("%w: %s is not in the Docker Engine", ErrImageNotFound, ref)
	}
	f.saved = append(f.saved, ref)
	return os.WriteFile(path, []byte(ref), 0o644)
}

// Every image a components file runs, by the canonical name written in it, is archived once
// in that provider's version directory; a provider without a Deployment gets no archive.
func TestWrite_ArchivesEveryImageTheComponentsRunBesideThem(t *testing.T) {
	dir := t.TempDir()
	saver := &fakeSaver{}
	written, err := Write(context.Background(), dir, "v0.2.0", saver)
	require.NoError(t, err)

	var referenced, archives []string
	for _, p := range clusterctl.Providers {
		vdir := filepath.Join(dir, p.Label, "v0.2.0")
		data, err := os.ReadFile(filepath.Join(vdir, p.File))
		require.NoError(t, err)
		objs, err := components.Parse(data)
		require.NoError(t, err)
		for _, ref := range components.Images(objs) {
			referenced = append(referenced, ref)
			archive := filepath.Join(vdir, archiveName(ref))
			content, err := os.ReadFile(archive)
			require.NoError(t, err, "%s runs %s, which has no archive", p.File, ref)
			require.Equal(t, ref, string(content), "the archive holds the image the components name")
		}
		tars, err := filepath.Glob(filepath.Join(vdir, "*.tar"))
		require.NoError(t, err)
		for _, tar := range tars {
			rel, _ := filepath.Rel(dir, tar)
			archives = append(archives, rel)
			require.Contains(t, written, tar, "Write lists the archives it wrote")
		}
	}
	require.Equal(t, referenced, saver.saved, "each referenced image saved once, nothing else")
	require.Equal(t, []string{
		"cluster-api/v0.2.0/core-manager.tar",
		"bootstrap-kubeadm/v0.2.0/bootstrap-kubeadm-manager.tar",
		"infrastructure-docker/v0.2.0/infrastructure-docker-manager.tar",
	}, archives)
}

func TestWrite_AMissingImageIsNamedWithTheMakeTargetThatBuildsIt(t *testing.T) {
	ref := canonical("capstan/bootstrap-kubeadm-manager:v0.2.0")
	_, err := Write(context.Background(), t.TempDir(), "v0.2.0", &fakeSaver{missing: map[string]bool{ref: true}})
	require.ErrorIs(t, err, ErrImageNotFound)
	require.EqualError(t, err, "provider bootstrap-kubeadm: image not found: "+ref+
		" is not in the Docker Engine: build it with 'make images VERSION=v0.2.0'")
}

func TestSaveArchives_SavesARepeatedImageOnceAndRefusesTwoImagesOfOneName(t *testing.T) {
	vdir := filepath.Join(t.TempDir(), "infrastructure-example", "v0.1.0")
	saver := &fakeSaver{}
	written, err := saveArchives(context.Background(), saver, vdir, "infrastructure-example", "v0.1.0",
		[]string{"example/manager:v0.1.0", "example/manager:v0.1.0"})
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(vdir, "manager.tar")}, written)
	require.Len(t, saver.saved, 1)

	_, err = saveArchives(context.Background(), &fakeSaver{}, vdir, "infrastructure-example", "v0.1.0",
		[]string{"example/manager:v0.1.0", "registry.local:5000/other/manager:v0.1.0"})
	require.EqualError(t, err, "provider infrastructure-example: images example/manager:v0.1.0 and "+
		"registry.local:5000/other/manager:v0.1.0 would both be archived as manager.tar")
}

// fakeDocker writes a docker command that answers as the CLI does: inspect knows only
// present:v1 and says "No such image" otherwise, save writes the reference to --output, and
// with down set every command fails as without an engine.
func fakeDocker(t *testing.T, down bool) string {
	t.Helper()
	script := `#!/bin/sh
if [ -n "$DOWN" ]; then echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2; exit 1; fi
case "$1 $2" in
"image inspect") [ "$5" = present:v1 ] && { echo sha256:0123; exit 0; }
  echo "Error response from daemon: No such image: $5" >&2; exit 1 ;;
"image save") printf '%s' "$5" >"$4" ;;
*) echo "unexpected: $*" >&2; exit 2 ;;
esac
`
	if down {
		script = strings.Replace(script, `"$DOWN"`, `"down"`, 1)
	}
	bin := filepath.Join(t.TempDir(), "docker")
	require.NoError(t, os.WriteFile(bin, []byte(script), 0o755))
	return bin
}

func TestDockerCLI_SavesAPresentImageAndTellsAMissingOneFromNoEngine(t *testing.T) {
	ctx, dir := context.Background(), t.TempDir()
	d := DockerCLI{Binary: fakeDocker(t, false)}
	archive := filepath.Join(dir, "present.tar")
	require.NoError(t, d.Save(ctx, "present:v1", archive))
	content, err := os.ReadFile(archive)
	require.NoError(t, err)
	require.Equal(t, "present:v1", string(content))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left")

	err = d.Save(ctx, "missing:v1", filepath.Join(dir, "missing.tar"))
	require.ErrorIs(t, err, ErrImageNotFound)
	require.ErrorContains(t, err, "missing:v1 is not in the Docker Engine")
	require.NoFileExists(t, filepath.Join(dir, "missing.tar"))

	err = DockerCLI{Binary: fakeDocker(t, true)}.Save(ctx, "present:v1", filepath.Join(dir, "down.tar"))
	require.False(t, errors.Is(err, ErrImageNotFound), "no engine is not a missing image")
	require.ErrorIs(t, err, ErrNoEngine)
	require.ErrorContains(t, err, "no Docker Engine answers: docker image inspect --format {{.Id}} present:v1: Cannot connect to the Docker daemon at "+
		"unix:///var/run/docker.sock. Is the docker daemon running?: run 'make docker-up' to start one")

	err = DockerCLI{Binary: filepath.Join(dir, "nodocker")}.Save(ctx, "present:v1", filepath.Join(dir, "x.tar"))
	require.ErrorIs(t, err, ErrNoEngine)
	require.ErrorContains(t, err, "run 'make docker-up'")
	require.NoFileExists(t, filepath.Join(dir, "x.tar"))
}
