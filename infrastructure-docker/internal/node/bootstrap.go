package node

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/infrastructure-docker/internal/cloudinit"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// Where the bootstrap leaves its traces in the node container.
const (
	// sentinelPath is written by the bootstrap data's last command (the bootstrap contract):
	// once it exists the node is bootstrapped and nothing runs again.
	sentinelPath = "/run/cluster-api/bootstrap-success.complete"
	// bootstrapDir is created, atomically, when the provider starts the bootstrap: it is the lock
	// that makes the bootstrap run at most once, even across controller restarts. It holds the
	// start time, the runner script, its process ID, its output and its exit record. It is on the
	// node's /var volume, not in /run (a tmpfs that a restart empties),
	// so a container restart in the middle of a bootstrap does not start a second one.
	bootstrapDir = "/var/lib/capstan/bootstrap"
	// outputTail is how much of the commands' output a condition message carries.
	outputTail = 1500
)

// DefaultBootstrapTimeout bounds a bootstrap when the object sets no timeout of its own.
const DefaultBootstrapTimeout = 5 * time.Minute

// Retry intervals of the bootstrap, for states no event announces.
const (
	bootstrapPoll = 2 * time.Second
	// dataRetry is how soon bootstrap data that cannot be executed is read again: the Secret
	// may be fixed or replaced, and Secrets are not watched.
	dataRetry = time.Minute
)

// BootstrapPhase is where the bootstrap of one node container stands.
type BootstrapPhase string

// The phases of a bootstrap. Succeeded, TimedOut, and Failed without RequeueAfter are final:
// the container is never bootstrapped a second time. Failed with RequeueAfter is bootstrap data
// that cannot be executed: nothing ran, and it is read again later.
const (
	// BootstrapWaitingForContainer: systemd in the container has not finished booting.
	BootstrapWaitingForContainer BootstrapPhase = "WaitingForContainer"
	// BootstrapRunning: the commands run in the background.
	BootstrapRunning BootstrapPhase = "Running"
	// BootstrapSucceeded: the sentinel exists.
	BootstrapSucceeded BootstrapPhase = "Succeeded"
	// BootstrapFailed: a command failed, the data cannot be executed, or nothing wrote the sentinel.
	BootstrapFailed BootstrapPhase = "Failed"
	// BootstrapTimedOut: the commands ran longer than the timeout and were stopped.
	BootstrapTimedOut BootstrapPhase = "TimedOut"
	// BootstrapPreLoadImageNotFound: an image to pre-load is not on the Docker Engine; nothing
	// ran, and it is looked for again later.
	BootstrapPreLoadImageNotFound BootstrapPhase = "PreLoadImageNotFound"
	// BootstrapPreLoadFailed: importing an image to pre-load into the node failed; nothing ran,
	// and it is tried again later.
	BootstrapPreLoadFailed BootstrapPhase = "PreLoadFailed"
)

// BootstrapStatus is what Bootstrap found or did.
type BootstrapStatus struct {
	Phase BootstrapPhase
	// Message says what the bootstrap is doing or why it failed, with the tail of the commands'
	// output; empty on success.
	Message string
	// RequeueAfter is when to look again; zero once the phase is final.
	RequeueAfter time.Duration
}

// BootstrapOptions are what Bootstrap needs besides the container.
type BootstrapOptions struct {
	// Cluster is the node's Cluster: its endpoint decides whether the in-node endpoint route is
	// installed (see endpointRoute).
	Cluster *clusterv1.Cluster
	// DataSecret is the bootstrap data Secret (key "value"), read live when the bootstrap starts:
	// a node always gets the Secret's content of that moment.
	DataSecret client.ObjectKey
	// Timeout bounds the commands; zero means DefaultBootstrapTimeout.
	Timeout time.Duration
	// TimeoutSource names where Timeout comes from, for messages, e.g. "spec.bootstrapTimeout".
	TimeoutSource string
	// Replace tells users how to replace a node whose bootstrap failed, e.g. "delete the
	// Machine to replace it".
	Replace string
	// PreLoadImages are images of the Docker Engine to import into the node's containerd before
	// the bootstrap starts (see preLoadImages).
	PreLoadImages []string
	// PreLoadImagesField names where PreLoadImages come from, for messages, e.g.
	// "spec.preLoadImages".
	PreLoadImagesField string
}

// Bootstrap advances the bootstrap of c by one step and reports where it stands: once systemd
// in c has booted it imports the images to pre-load, then starts the bootstrap data's execution
// in the background, then polls it.
// Callers call it again after RequeueAfter until the phase is final, and remember success
// themselves: a restarted container has lost the sentinel (it is in /run) but keeps the lock.
func (p *Provisioner) Bootstrap(ctx context.Context, c *docker.Container, o BootstrapOptions) (BootstrapStatus, error) {
	st, err := p.readBootstrapState(ctx, c)
	if err != nil {
		return BootstrapStatus{}, err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultBootstrapTimeout
	}
	running := BootstrapStatus{Phase: BootstrapRunning, Message: "Running the bootstrap commands in the node container", RequeueAfter: bootstrapPoll}
	switch {
	case st.succeeded:
		ctrl.LoggerFrom(ctx).Info("The node container is bootstrapped", "container", c.Name)
		return BootstrapStatus{Phase: BootstrapSucceeded}, nil
	case st.finished && st.exitCode == 0:
		return BootstrapStatus{Phase: BootstrapFailed, Message: fmt.Sprintf(
			"The bootstrap commands succeeded but none wrote %s, which the bootstrap contract requires of the bootstrap data; output tail:\n%s", sentinelPath, st.output)}, nil
	case st.timedOut:
		return BootstrapStatus{Phase: BootstrapTimedOut, Message: fmt.Sprintf(
			"The bootstrap did not finish within %s (%s); command %d was stopped; output tail:\n%s", timeout, o.TimeoutSource, st.command, st.output)}, nil
	case st.finished:
		return BootstrapStatus{Phase: BootstrapFailed, Message: fmt.Sprintf(
			"Bootstrap command %d exited with %d; the node is not bootstrapped and will not be retried (%s); output tail:\n%s",
			st.command, st.exitCode, o.Replace, st.output)}, nil
	case st.started && timedOut(st, timeout):
		if err := p.stopBootstrap(ctx, c); err != nil {
			return BootstrapStatus{}, err
		}
		running.RequeueAfter = time.Millisecond // report what stopBootstrap recorded
		return running, nil
	case st.started:
		return running, nil
	case st.booting != "":
		return BootstrapStatus{Phase: BootstrapWaitingForContainer, Message: fmt.Sprintf(
			"Waiting for systemd in the node container to finish booting (state %q): nothing is written before it mounted /run", st.booting),
			RequeueAfter: bootstrapPoll}, nil
	}

	if len(o.PreLoadImages) > 0 {
		// Before the lock: a node whose images cannot be imported has run nothing yet.
		waiting, err := p.preLoadImages(ctx, c, o)
		if err != nil {
			return BootstrapStatus{}, err
		}
		if waiting != nil {
			return *waiting, nil
		}
	}
	data, err := p.bootstrapData(ctx, o.DataSecret)
	if err != nil {
		return BootstrapStatus{}, err
	}
	err = p.startBootstrap(ctx, o.Cluster, c, data)
	var dataErr *bootstrapDataError
	switch {
	case errors.As(err, &dataErr):
		// Nothing ran; the Secret may be fixed or replaced, and its update is not watched.
		return BootstrapStatus{Phase: BootstrapFailed, Message: err.Error(), RequeueAfter: dataRetry}, nil
	case errors.Is(err, errBootstrapStarted):
	case err != nil:
		return BootstrapStatus{}, err
	}
	return running, nil
}

// timedOut reports whether the bootstrap began longer than timeout ago. An unknown start time
// (the lock was taken but the time not written) counts as timed out.
func timedOut(st bootstrapState, timeout time.Duration) bool {
	return st.startedAt.IsZero() || time.Since(st.startedAt) > timeout
}

// bootstrapData reads a bootstrap data Secret live (key "value"): the manager caches no Secret.
func (p *Provisioner) bootstrapData(ctx context.Context, key client.ObjectKey) ([]byte, error) {
	secret := &corev1.Secret{}
	if err := p.APIReader.Get(ctx, key, secret); err != nil {
		return nil, fmt.Errorf("reading the bootstrap data Secret %s: %w", key, err)
	}
	data, ok := secret.Data["value"]
	if !ok {
		return nil, fmt.Errorf("the bootstrap data Secret %s has no key \"value\"", key)
	}
	return data, nil
}

// bootstrapState is what the node container says about its bootstrap.
type bootstrapState struct {
	// booting is set while the container's init (systemd) is not running yet or still
	// starting: its units set up /run, /etc and the runtime, so nothing may be written yet. It
	// holds systemd's state, or "entrypoint" while the image's entrypoint is still PID 1.
	booting string
	// succeeded: the sentinel exists.
	succeeded bool
	// started: the bootstrap directory exists (the provider began executing the data).
	started   bool
	startedAt time.Time
	// finished: the runner wrote its exit record: exit code, and the failing command's number;
	// or the provider did after the timeout (timedOut, with the command that was running).
	finished bool
	timedOut bool
	exitCode int
	command  int
	// output is the tail of the commands' output.
	output string
}

// readBootstrapState reads the sentinel and the bootstrap directory in one exec.
func (p *Provisioner) readBootstrapState(ctx context.Context, c *docker.Container) (bootstrapState, error) {
	// An image with systemd is ready once systemd is PID 1 (the node image's entrypoint runs
	// first) and has finished booting.
	script := `b=ready
if [ -x /lib/systemd/systemd ] || [ -x /usr/lib/systemd/systemd ]; then
  if [ "$(cat /proc/1/comm)" != systemd ]; then b=entrypoint
  else b=$(systemctl is-system-running 2>/dev/null); case "$b" in running|degraded) b=ready;; esac; fi
fi; echo "$b"
s=0; test -e "$1" && s=1; echo "$s"
if [ -d "$2" ]; then echo started; cat "$2/started" 2>/dev/null || echo 0
  if [ -f "$2/exit" ]; then cat "$2/exit"; else echo running; fi
  tail -c ` + strconv.Itoa(outputTail) + ` "$2/log" 2>/dev/null
else echo new; fi`
	res, err := p.Docker.Exec(ctx, c, nil, "/bin/sh", "-c", script, "sh", sentinelPath, bootstrapDir)
	if err != nil {
		return bootstrapState{}, fmt.Errorf("reading the bootstrap state of %s: %w", c.Name, err)
	}
	if res.ExitCode != 0 {
		return bootstrapState{}, fmt.Errorf("reading the bootstrap state of %s: %s", c.Name, res)
	}
	boot, rest, _ := strings.Cut(res.Stdout, "\n")
	lines := strings.SplitN(rest, "\n", 5)
	st := bootstrapState{succeeded: len(lines) > 0 && lines[0] == "1"}
	if boot != "ready" {
		st.booting = boot
	}
	if len(lines) < 2 || lines[1] != "started" {
		return st, nil
	}
	st.started = true
	if len(lines) > 2 {
		if sec, err := strconv.ParseInt(strings.TrimSpace(lines[2]), 10, 64); err == nil && sec > 0 {
			st.startedAt = time.Unix(sec, 0)
		}
	}
	if len(lines) > 3 && lines[3] != "running" {
		f := strings.Fields(lines[3])
		if len(f) == 2 {
			st.finished = true
			st.command, _ = strconv.Atoi(f[1])
			if f[0] == "timeout" {
				st.timedOut, st.exitCode = true, -1
			} else {
				st.exitCode, _ = strconv.Atoi(f[0])
			}
		}
	}
	if len(lines) > 4 {
		st.output = lines[4]
	}
	return st, nil
}

// errBootstrapStarted says that another reconcile (or an earlier controller) already took the
// bootstrap lock.
var errBootstrapStarted = errors.New("the bootstrap was already started")

// startBootstrap executes the bootstrap data in c: it takes the lock (creating bootstrapDir
// with the start time), writes the files (the kubeadm configuration amended for a node
// container), routes the cluster endpoint when needed, then starts the runcmd commands in the
// background and returns. The caller polls readBootstrapState.
func (p *Provisioner) startBootstrap(ctx context.Context, cluster *clusterv1.Cluster, c *docker.Container, data []byte) error {
	log := ctrl.LoggerFrom(ctx)
	parsed, err := cloudinit.Parse(data)
	if err != nil {
		return &bootstrapDataError{fmt.Errorf("the bootstrap data cannot be executed: %w", err)}
	}
	for _, ig := range parsed.Ignored {
		log.Info("Ignoring a cloud-init key without effect in a node container", "key", ig.Key, "line", ig.Line)
	}
	lock, err := p.Docker.Exec(ctx, c, nil, "/bin/sh", "-c", `mkdir -p "$(dirname "$1")" && mkdir "$1" && date +%s > "$1/started"`, "sh", bootstrapDir)
	if err != nil {
		return fmt.Errorf("taking the bootstrap lock in %s: %w", c.Name, err)
	}
	if lock.ExitCode != 0 {
		return errBootstrapStarted
	}
	log.Info("Bootstrapping the node container", "container", c.Name, "actions", len(parsed.Actions))

	var commands [][]string
	kubeadm := false
	for _, a := range parsed.Actions {
		switch a := a.(type) {
		case *cloudinit.WriteFile:
			content := a.Content
			if isKubeadmConfigPath(a.Path) {
				kubeadm = true
				if a.Append {
					log.Info("Not amending a kubeadm configuration that the bootstrap data appends to", "path", a.Path)
				} else if content, err = amendKubeadmConfig(content); err != nil {
					return p.failBootstrap(ctx, c, fmt.Errorf("amending %s (line %d): %w", a.Path, a.Line, err))
				}
			}
			if err := p.Docker.WriteFile(ctx, c, docker.File{Path: a.Path, Content: content, Mode: a.Permissions, Owner: a.Owner, Append: a.Append}); err != nil {
				return p.failBootstrap(ctx, c, fmt.Errorf("write_files (line %d): %w", a.Line, err))
			}
		case *cloudinit.RunCommand:
			commands = append(commands, a.Args)
		}
	}
	if kubeadm {
		if err := p.routeEndpoint(ctx, cluster, c); err != nil {
			return p.failBootstrap(ctx, c, err)
		}
	}
	if err := p.Docker.WriteFile(ctx, c, docker.File{Path: bootstrapDir + "/run.sh", Content: []byte(runnerScript(commands)), Mode: 0o700}); err != nil {
		return p.failBootstrap(ctx, c, err)
	}
	// setsid detaches the runner from the exec session: it outlives this call and a restart of
	// the controller. It is the leader of its own process group, so a timeout kills it whole.
	start := `setsid /bin/sh "$1/run.sh" > "$1/log" 2>&1 < /dev/null & echo $! > "$1/pid"`
	res, err := p.Docker.Exec(ctx, c, nil, "/bin/sh", "-c", start, "sh", bootstrapDir)
	if err != nil {
		return fmt.Errorf("starting the bootstrap commands in %s: %w", c.Name, err)
	}
	if res.ExitCode != 0 {
		return p.failBootstrap(ctx, c, fmt.Errorf("starting the bootstrap commands: %s", res))
	}
	return nil
}

// bootstrapDataError is bootstrap data the provider cannot execute: nothing was started.
type bootstrapDataError struct{ err error }

func (e *bootstrapDataError) Error() string { return e.err.Error() }
func (e *bootstrapDataError) Unwrap() error { return e.err }

// failBootstrap records cause as the bootstrap's end in the container (exit code 1, command 0),
// so that the failure is terminal and reported like a failing command, and returns nil: the
// next poll reports it.
func (p *Provisioner) failBootstrap(ctx context.Context, c *docker.Container, cause error) error {
	script := `printf '%s\n' "$2" >> "$1/log"; echo "1 0" > "$1/exit"`
	res, err := p.Docker.Exec(ctx, c, nil, "/bin/sh", "-c", script, "sh", bootstrapDir, cause.Error())
	if err != nil {
		return fmt.Errorf("recording the bootstrap failure %q in %s: %w", cause, c.Name, err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("recording the bootstrap failure %q in %s: %s", cause, c.Name, res)
	}
	return nil
}

// stopBootstrap kills the runner's process group after a timeout and records the timeout with
// the command that was running, so that it is terminal. (dash, the nodes' sh, takes no "--" in kill.)
func (p *Provisioner) stopBootstrap(ctx context.Context, c *docker.Container) error {
	script := `pid=$(cat "$1/pid" 2>/dev/null); [ -n "$pid" ] && kill -KILL "-$pid" 2>/dev/null
n=$(sed -n 's/^+ \[\([0-9]*\)\].*/\1/p' "$1/log" 2>/dev/null | tail -n 1); echo "timeout ${n:-0}" > "$1/exit"`
	res, err := p.Docker.Exec(ctx, c, nil, "/bin/sh", "-c", script, "sh", bootstrapDir)
	if err != nil {
		return fmt.Errorf("stopping the bootstrap in %s: %w", c.Name, err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("stopping the bootstrap in %s: %s", c.Name, res)
	}
	return nil
}

// runnerScript runs the commands in order, each without a shell of its own (their arguments
// are quoted), announcing each as "+ [n] command" and stopping at the first failure, whose exit
// code and number it records in exit; "0 0" records success. cloud-init would go on after a
// failing runcmd entry; a node whose kubeadm step failed is not worth continuing, so the
// provider stops there, as upstream CAPD does.
func runnerScript(commands [][]string) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# Written by the Capstan Docker provider: the bootstrap data's runcmd, run once.\n")
	b.WriteString("dir=" + bootstrapDir + "\n")
	b.WriteString(`step() { n=$1; shift; echo "+ [$n] $*"; "$@"; rc=$?; if [ "$rc" -ne 0 ]; then echo "$rc $n" > "$dir/exit"; exit "$rc"; fi; }` + "\n")
	for i, args := range commands {
		quoted := make([]string, len(args))
		for j, a := range args {
			quoted[j] = shellQuote(a)
		}
		fmt.Fprintf(&b, "step %d %s\n", i+1, strings.Join(quoted, " "))
	}
	b.WriteString(`echo "0 0" > "$dir/exit"` + "\n")
	return b.String()
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
