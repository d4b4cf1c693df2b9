package imagestest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
	"github.com/stretchr/testify/require"
)

const (
	lbImage      = "capstan/haproxy:latest"
	haproxyPath  = "/usr/local/etc/haproxy/haproxy.cfg"
	reloadedPort = 7443
)

// listening reports whether a TCP socket listens on port in the container (from /proc/net/tcp*,
// since the image has no ss or netstat).
func listening(ctx context.Context, cli *client.Client, id string, port int) error {
	res, err := execIn(ctx, cli, id, "", "cat", "/proc/net/tcp", "/proc/net/tcp6")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(res.Stdout, "\n") {
		f := strings.Fields(line)
		// sl local_address rem_address st ...; state 0A is LISTEN.
		if len(f) > 3 && strings.HasSuffix(f[1], fmt.Sprintf(":%04X", port)) && f[3] == "0A" {
			return nil
		}
	}
	return fmt.Errorf("nothing listens on %d", port)
}

func TestLBImage_StartsWithDefaultConfigAndReloadsOnSIGHUP(t *testing.T) {
	cli := engine(t)
	name := scratchObjects(t, cli)
	buildImage(t, cli, lbImage, "make lb-image", "lb-image.sh")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	labels := map[string]string{testLabel: name}
	_, err := cli.NetworkCreate(ctx, name, network.CreateOptions{Internal: true, Labels: labels})
	require.NoError(t, err)
	created, err := cli.ContainerCreate(ctx,
		&container.Config{Image: lbImage, Hostname: name, Labels: labels},
		&container.HostConfig{NetworkMode: container.NetworkMode(name)}, nil, nil, name)
	require.NoError(t, err)
	require.NoError(t, cli.ContainerStart(ctx, created.ID, container.StartOptions{}))

	eventually(t, 30*time.Second, 200*time.Millisecond, "haproxy listens on 6443", func() error {
		if err := listening(ctx, cli, created.ID, 6443); err != nil {
			return fmt.Errorf("%w; logs:\n%s", err, containerLogs(ctx, cli, created.ID))
		}
		return nil
	})
	mustExec(t, cli, created.ID, "haproxy", "-c", "-f", haproxyPath)

	// Replace the configuration the way the Docker provider does, then send SIGHUP: the master
	// reloads, and the new frontend's port listens.
	cfg := mustExec(t, cli, created.ID, "cat", haproxyPath) +
		fmt.Sprintf("\nfrontend reloaded\n  bind *:%d\n  default_backend kube-apiservers\n", reloadedPort)
	res, err := execIn(ctx, cli, created.ID, cfg, "sh", "-c", "mkdir -p /usr/local/etc/haproxy && cp /dev/stdin "+haproxyPath)
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, "writing the configuration: %s", res)
	require.NoError(t, cli.ContainerKill(ctx, created.ID, "SIGHUP"))
	eventually(t, 30*time.Second, 200*time.Millisecond, "haproxy listens on the reloaded port", func() error {
		return listening(ctx, cli, created.ID, reloadedPort)
	})
	inspected, err := cli.ContainerInspect(ctx, created.ID)
	require.NoError(t, err)
	require.True(t, inspected.State.Running, "haproxy exited after SIGHUP")
}

// containerLogs returns the output of a container started without a TTY, for failure messages.
func containerLogs(ctx context.Context, cli *client.Client, id string) string {
	logs, err := cli.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true, Tail: "30"})
	if err != nil {
		return err.Error()
	}
	defer logs.Close()
	var out strings.Builder
	if _, err := stdcopy.StdCopy(&out, &out, logs); err != nil {
		return err.Error()
	}
	return out.String()
}
