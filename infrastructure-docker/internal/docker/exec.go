package docker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

// ExecResult is what a command run in a container printed and how it ended.
type ExecResult struct {
	Stdout, Stderr string
	ExitCode       int
}

func (r ExecResult) String() string {
	return fmt.Sprintf("exit %d; stdout: %q; stderr: %q", r.ExitCode, r.Stdout, r.Stderr)
}

// Exec runs cmd (no shell) in the running container c, feeding it stdin when not nil, and waits
// for it. A non-zero exit code is not an error: the caller reads ExitCode.
func (r *Runtime) Exec(ctx context.Context, c *Container, stdin io.Reader, cmd ...string) (ExecResult, error) {
	if err := r.check(ctx, c); err != nil {
		return ExecResult{}, err
	}
	if len(cmd) == 0 {
		return ExecResult{}, fmt.Errorf("exec in %s: no command", c.Name)
	}
	created, err := r.cli.ContainerExecCreate(ctx, c.ID, container.ExecOptions{
		Cmd: cmd, AttachStdin: stdin != nil, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return ExecResult{}, fmt.Errorf("creating exec %q in %s: %w", cmd, c.Name, err)
	}
	attached, err := r.cli.ContainerExecAttach(ctx, created.ID, container.ExecAttachOptions{})
	if err != nil {
		return ExecResult{}, fmt.Errorf("attaching to exec %q in %s: %w", cmd, c.Name, err)
	}
	defer attached.Close()
	stop := context.AfterFunc(ctx, func() { attached.Close() })
	defer stop()
	if stdin != nil {
		go func() {
			_, _ = io.Copy(attached.Conn, stdin)
			_ = attached.CloseWrite()
		}()
	}
	var stdout, stderr bytes.Buffer
	if _, err := stdcopy.StdCopy(&stdout, &stderr, attached.Reader); err != nil && ctx.Err() == nil {
		return ExecResult{}, fmt.Errorf("reading the output of %q in %s: %w", cmd, c.Name, err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return ExecResult{}, fmt.Errorf("exec %q in %s: %w", cmd, c.Name, err)
		}
		inspected, err := r.cli.ContainerExecInspect(ctx, created.ID)
		if err != nil {
			return ExecResult{}, fmt.Errorf("inspecting exec %q in %s: %w", cmd, c.Name, err)
		}
		if !inspected.Running {
			return ExecResult{Stdout: stdout.String(), Stderr: stderr.String(), ExitCode: inspected.ExitCode}, nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// run is Exec that fails on a non-zero exit code.
func (r *Runtime) run(ctx context.Context, c *Container, stdin io.Reader, cmd ...string) (ExecResult, error) {
	res, err := r.Exec(ctx, c, stdin, cmd...)
	if err != nil {
		return res, err
	}
	if res.ExitCode != 0 {
		return res, fmt.Errorf("%q in %s: %s", cmd, c.Name, res)
	}
	return res, nil
}

// File is a file to write into a container.
type File struct {
	// Path is absolute.
	Path    string
	Content []byte
	// Mode is applied after writing (chmod), including setuid/setgid/sticky.
	Mode fs.FileMode
	// Owner is "user" or "user:group"; empty leaves the owner (root) unchanged.
	Owner string
	// Append adds Content to the end of the file instead of replacing it.
	Append bool
}

// WriteFile writes f into the running container c through exec with stdin: the parent directory
// is created, then the content is streamed to cat, then mode and owner are set. The path travels
// as an argument, never through shell parsing.
func (r *Runtime) WriteFile(ctx context.Context, c *Container, f File) error {
	if !path.IsAbs(f.Path) {
		return fmt.Errorf("writing into %s: path %q is not absolute", c.Name, f.Path)
	}
	redirect := ">"
	if f.Append {
		redirect = ">>"
	}
	script := `mkdir -p "$(dirname "$1")" && cat ` + redirect + ` "$1"`
	if _, err := r.run(ctx, c, bytes.NewReader(f.Content), "/bin/sh", "-c", script, "sh", f.Path); err != nil {
		return fmt.Errorf("writing %s: %w", f.Path, err)
	}
	if _, err := r.run(ctx, c, nil, "chmod", OctalMode(f.Mode), f.Path); err != nil {
		return fmt.Errorf("setting the mode of %s: %w", f.Path, err)
	}
	if f.Owner != "" {
		if _, err := r.run(ctx, c, nil, "chown", f.Owner, f.Path); err != nil {
			return fmt.Errorf("setting the owner of %s: %w", f.Path, err)
		}
	}
	return nil
}

// ReadFile returns the content of a file in the running container c.
func (r *Runtime) ReadFile(ctx context.Context, c *Container, p string) ([]byte, error) {
	res, err := r.run(ctx, c, nil, "cat", p)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	return []byte(res.Stdout), nil
}

// OctalMode is mode as chmod takes it, with the setuid, setgid and sticky bits.
func OctalMode(mode fs.FileMode) string {
	v := uint64(mode.Perm())
	if mode&fs.ModeSetuid != 0 {
		v |= 0o4000
	}
	if mode&fs.ModeSetgid != 0 {
		v |= 0o2000
	}
	if mode&fs.ModeSticky != 0 {
		v |= 0o1000
	}
	return strconv.FormatUint(v, 8)
}
