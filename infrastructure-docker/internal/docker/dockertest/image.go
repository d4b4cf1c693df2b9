package dockertest

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"testing"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"

	"capstan.dev/infrastructure-docker/internal/docker"
)

// BuildImage builds the image tag on the engine FROM scratch holding files (path in the image →
// content), through the Engine API and a build context made in memory: nothing is pulled. The
// image carries the provider label (so a stray one is recognisable) and is removed when the
// test ends.
func BuildImage(t *testing.T, tag string, files map[string]string) {
	t.Helper()
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatalf("creating the Docker client: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := cli.ImageRemove(ctx, tag, image.RemoveOptions{Force: true, PruneChildren: true}); err != nil && !client.IsErrNotFound(err) {
			t.Errorf("removing image %s: %v", tag, err)
		}
		_ = cli.Close()
	})
	buildContext, err := scratchContext(files)
	if err != nil {
		t.Fatalf("making the build context of %s: %v", tag, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := cli.ImageBuild(ctx, buildContext, build.ImageBuildOptions{
		Tags: []string{tag}, Remove: true, ForceRemove: true, Version: build.BuilderV1,
		Labels: map[string]string{docker.ProviderLabel: docker.ProviderName},
	})
	if err != nil {
		t.Fatalf("building %s: %v", tag, err)
	}
	defer resp.Body.Close()
	if err := buildError(resp.Body); err != nil {
		t.Fatalf("building %s: %v", tag, err)
	}
}

// scratchContext is a tar with a Dockerfile copying files into an empty image.
func scratchContext(files map[string]string) (io.Reader, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	dockerfile := "FROM scratch\n"
	for i, p := range paths {
		dockerfile += fmt.Sprintf("COPY file-%d %s\n", i, p)
	}
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	add := func(name, content string) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content))}); err != nil {
			return err
		}
		_, err := tw.Write([]byte(content))
		return err
	}
	if err := add("Dockerfile", dockerfile); err != nil {
		return nil, err
	}
	for i, p := range paths {
		if err := add(fmt.Sprintf("file-%d", i), files[p]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return &b, nil
}

// buildError reads the build's JSON message stream to its end and returns the error it reports.
func buildError(stream io.Reader) error {
	dec := json.NewDecoder(stream)
	for {
		var msg struct {
			Error       string `json:"error"`
			ErrorDetail *struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		err := dec.Decode(&msg)
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("reading the build output: %w", err)
		case msg.ErrorDetail != nil:
			return errors.New(msg.ErrorDetail.Message)
		case msg.Error != "":
			return errors.New(msg.Error)
		}
	}
}
