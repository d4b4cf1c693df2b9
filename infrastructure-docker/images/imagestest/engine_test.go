package imagestest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
	"github.com/stretchr/testify/require"
)

// testLabel marks every object a test creates; its value is the test's name.
const testLabel = "io.capstan.test"

// engine connects to the Docker Engine, or skips the test when none answers.
func engine(t *testing.T) *client.Client {
	t.Helper()
	if testing.Short() {
		t.Skip("starts node containers and builds images: skipped with -short")
	}
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx); err != nil {
		_ = cli.Close()
		t.Skipf("no Docker Engine answers (run `make docker-up`): %v", err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

// repoRoot is the directory holding go.work.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.work above the test's directory")
		dir = parent
	}
}

// buildImage runs a hack/images script (cached: fast when nothing changed) and returns the
// time it took. With CAPSTAN_IMAGES_BUILD=0 it only checks that ref exists and skips the test
// naming makeTarget when it does not.
func buildImage(t *testing.T, cli *client.Client, ref, makeTarget string, script string, args ...string) time.Duration {
	t.Helper()
	ctx := context.Background()
	start := time.Now()
	if os.Getenv("CAPSTAN_IMAGES_BUILD") != "0" {
		cmd := exec.Command("bash", append([]string{filepath.Join(repoRoot(t), "hack", "images", script)}, args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Run(), "hack/images/%s %s:\n%s", script, strings.Join(args, " "), out.String())
		t.Logf("hack/images/%s %s (%s):\n%s", script, strings.Join(args, " "), time.Since(start).Round(time.Second), out.String())
	}
	if _, err := cli.ImageInspect(ctx, ref); err != nil {
		t.Skipf("image %s is absent (run `%s`): %v", ref, makeTarget, err)
	}
	return time.Since(start)
}

// removeLabelled removes every container (with its anonymous volumes), volume and network that
// carries testLabel=name.
func removeLabelled(cli *client.Client, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	f := filters.NewArgs(filters.Arg("label", testLabel+"="+name))
	var errs []error
	containers, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	errs = append(errs, err)
	for _, c := range containers {
		errs = append(errs, cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}))
	}
	volumes, err := cli.VolumeList(ctx, volume.ListOptions{Filters: f})
	errs = append(errs, err)
	for _, v := range volumes.Volumes {
		errs = append(errs, cli.VolumeRemove(ctx, v.Name, true))
	}
	networks, err := cli.NetworkList(ctx, network.ListOptions{Filters: f})
	errs = append(errs, err)
	for _, n := range networks {
		errs = append(errs, cli.NetworkRemove(ctx, n.ID))
	}
	return errors.Join(errs...)
}

// scratchObjects removes what an earlier, killed run of the test left, and registers the
// removal of everything the test creates.
func scratchObjects(t *testing.T, cli *client.Client) string {
	t.Helper()
	name := strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-"))
	require.NoError(t, removeLabelled(cli, name))
	t.Cleanup(func() {
		if err := removeLabelled(cli, name); err != nil {
			t.Errorf("removing the objects labelled %s=%s: %v", testLabel, name, err)
		}
	})
	return name
}

// execResult is what a command run in a container printed and how it ended.
type execResult struct {
	Stdout, Stderr string
	ExitCode       int
}

func (r execResult) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.ExitCode, r.Stdout, r.Stderr)
}

// execIn runs cmd in a running container, feeding it stdin when not empty.
func execIn(ctx context.Context, cli *client.Client, id, stdin string, cmd ...string) (execResult, error) {
	created, err := cli.ContainerExecCreate(ctx, id, container.ExecOptions{
		Cmd: cmd, AttachStdin: stdin != "", AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return execResult{}, fmt.Errorf("creating exec %q: %w", cmd, err)
	}
	attached, err := cli.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		return execResult{}, fmt.Errorf("attaching to exec %q: %w", cmd, err)
	}
	defer attached.Close()
	if stdin != "" {
		go func() {
			_, _ = io.Copy(attached.Conn, strings.NewReader(stdin))
			_ = attached.CloseWrite()
		}()
	}
	var stdout, stderr bytes.Buffer
	if _, err := stdcopy.StdCopy(&stdout, &stderr, attached.Reader); err != nil {
		return execResult{}, fmt.Errorf("reading the output of %q: %w", cmd, err)
	}
	for {
		inspected, err := cli.ContainerExecInspect(ctx, created.ID)
		if err != nil {
			return execResult{}, fmt.Errorf("inspecting exec %q: %w", cmd, err)
		}
		if !inspected.Running {
			return execResult{Stdout: stdout.String(), Stderr: stderr.String(), ExitCode: inspected.ExitCode}, nil
		}
		select {
		case <-ctx.Done():
			return execResult{}, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// mustExec runs cmd in a container and fails the test unless it exits 0; it returns stdout.
func mustExec(t *testing.T, cli *client.Client, id string, cmd ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := execIn(ctx, cli, id, "", cmd...)
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, "%q in %s: %s", cmd, id, res)
	return res.Stdout
}

// waitForLog follows a container's output (a TTY: not multiplexed) until a line matches re.
func waitForLog(ctx context.Context, cli *client.Client, id string, re *regexp.Regexp) error {
	logs, err := cli.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true, Follow: true})
	if err != nil {
		return fmt.Errorf("following the logs of %s: %w", id, err)
	}
	defer logs.Close()
	go func() { <-ctx.Done(); _ = logs.Close() }()
	var seen []string
	scanner := bufio.NewScanner(logs)
	for scanner.Scan() {
		line := scanner.Text()
		if re.MatchString(line) {
			return nil
		}
		seen = append(seen, line)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("no log line of %s matched %q before %w; last lines:\n%s", id, re, ctx.Err(), tail(seen, 30))
	}
	return fmt.Errorf("the logs of %s ended without a line matching %q (%v); last lines:\n%s", id, re, scanner.Err(), tail(seen, 30))
}

func tail(lines []string, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// eventually polls check every interval until it returns nil or the timeout passes, and then
// fails the test with the last error.
func eventually(t *testing.T, timeout, interval time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %v", what, timeout, err)
		}
		time.Sleep(interval)
	}
}
