package framework

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	dockerclient "github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
)

// LoadImage streams image from the host's engine (`docker save`) into the containerd of the
// node container named node (`ctr -n k8s.io images import -`), where the kubelet finds it
// without a registry, and returns once containerd lists it. The engine's error names a
// missing image ("make images" builds Capstan's).
func LoadImage(ctx context.Context, docker *dockerclient.Client, node, image string) error {
	saved, err := docker.ImageSave(ctx, []string{image})
	if err != nil {
		return fmt.Errorf("saving image %s from the engine: %w", image, err)
	}
	defer saved.Close()
	return importImage(ctx, docker, node, saved, image)
}

// LoadImageArchive imports the `docker save` archive at path (make release writes one per
// image) into the containerd of the node container named node, as LoadImage does, and returns
// once containerd lists image.
func LoadImageArchive(ctx context.Context, docker *dockerclient.Client, node, path, image string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return importImage(ctx, docker, node, f, image)
}

// importImage feeds archive to `ctr images import` in node and checks that containerd lists image.
func importImage(ctx context.Context, docker *dockerclient.Client, node string, archive io.Reader, image string) error {
	out, code, err := execIn(ctx, docker, node, archive, "ctr", "-n", "k8s.io", "images", "import", "-")
	if err != nil {
		return fmt.Errorf("importing %s into node %s: %w", image, node, err)
	}
	if code != 0 {
		return fmt.Errorf("importing %s into node %s: ctr exited with %d: %s", image, node, code, out)
	}
	listed, code, err := execIn(ctx, docker, node, nil, "ctr", "-n", "k8s.io", "images", "list", "-q")
	if err != nil || code != 0 {
		return fmt.Errorf("listing the images of node %s: exit %d, %v: %s", node, code, err, listed)
	}
	want := image
	if strings.Count(strings.SplitN(image, "/", 2)[0], ".") == 0 && strings.Contains(image, "/") {
		want = "docker.io/" + image // how containerd names a short reference
	}
	for _, l := range strings.Split(listed, "\n") {
		if strings.TrimSpace(l) == want {
			return nil
		}
	}
	return fmt.Errorf("node %s: containerd does not list %s after the import; it lists:\n%s", node, want, listed)
}

// Exec runs cmd in the container and returns its combined output and exit code.
func Exec(ctx context.Context, docker *dockerclient.Client, name string, cmd ...string) (string, int, error) {
	return execIn(ctx, docker, name, nil, cmd...)
}

// execIn runs cmd in the container, feeding it stdin when not nil, and returns its combined
// output and exit code.
func execIn(ctx context.Context, docker *dockerclient.Client, name string, stdin io.Reader, cmd ...string) (string, int, error) {
	created, err := docker.ContainerExecCreate(ctx, name, container.ExecOptions{
		Cmd: cmd, AttachStdin: stdin != nil, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return "", 0, err
	}
	attached, err := docker.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		return "", 0, err
	}
	defer attached.Close()
	if stdin != nil {
		go func() {
			_, _ = io.Copy(attached.Conn, stdin)
			_ = attached.CloseWrite()
		}()
	}
	var out bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, &out, attached.Reader); err != nil {
		return out.String(), 0, err
	}
	// The stream ends when the process exits; the engine records the exit code just after.
	for {
		inspected, err := docker.ContainerExecInspect(ctx, created.ID)
		if err != nil {
			return out.String(), 0, err
		}
		if !inspected.Running {
			return out.String(), inspected.ExitCode, nil
		}
		select {
		case <-ctx.Done():
			return out.String(), 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
