package node

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"capstan.dev/infrastructure-docker/internal/docker"
)

// bootstrapState is what the node container says about its bootstrap.
type bootstrapState struct {
	// booting is set while the container's init (systemd) is not running yet or still
	// starting: its units set up /run, /etc and the runtime, so nothing may be written yet. It
	// holds systemd's state, or "entrypoint" while the image's entrypoint is still PID 1.
	booting string
	// succeeded: the sentinel exists, or the runner saw it when the commands ended (a container
	// restart empties /run, and with it the sentinel).
	succeeded bool
	// locked: the bootstrap directory exists (the provider began the bootstrap).
	locked    bool
	startedAt time.Time
	// ran: the run was claimed, by a runner started or by the timeout.
	ran bool
	// finished: the exit record exists: the runner's exit code and the failing command's
	// number; or the provider's after the timeout (timedOut, with the command that was
	// running, and neverStarted when the timeout came before any run).
	finished     bool
	timedOut     bool
	neverStarted bool
	// lost: the runner was found gone without an exit record, which the provider then wrote.
	lost     bool
	exitCode int
	command  int
	// runnerGone: a runner was started and its process no longer runs (read before the exit
	// record, so without one it ended without writing it).
	runnerGone bool
	// prepareError is the last error of the provider between the lock and the run's start.
	prepareError string
	// output is the tail of the commands' output.
	output string
	// runtime is, before the lock, the status `ctr plugins ls` gives containerd's CRI plugin
	// ("ok"; "error" when it failed to load); empty when unknown (no ctr, containerd not up).
	runtime string
}

// bootstrapStateScript prints the state of the bootstrap, a field a line, for
// parseBootstrapState (the order of the lines is not the order of the reads): boot state,
// sentinel, lock (before it, the CRI plugin's status instead of the rest), start time, run
// claim, exit record,
// preparation error, the runner's liveness, then the tail of the runner's output. The boot
// state is "ready" only when systemctl says running or degraded: early in the boot systemctl
// cannot reach systemd's bus yet and prints nothing, which is "unreachable" (still booting).
// Every file but the lock may be missing (the provider may have been stopped anywhere between the lock and the run's end), so
// none is read in a way that fails: the script exits 0 whatever it finds.
// Arguments: the sentinel path and the bootstrap directory.
var bootstrapStateScript = `b=ready
if [ -x /lib/systemd/systemd ] || [ -x /usr/lib/systemd/systemd ]; then
  if [ "$(cat /proc/1/comm)" != systemd ]; then b=entrypoint
  else b=$(systemctl is-system-running 2>/dev/null); case "$b" in running|degraded) b=ready;; "") b=unreachable;; esac; fi
fi; echo "$b"
if [ ! -d "$2" ]; then s=0; [ -e "$1" ] && s=1; echo "$s"; echo new
  # Before the lock, once booted: the status of containerd's CRI plugin, which kubeadm needs.
  if [ "$b" = ready ] && command -v ctr >/dev/null; then ctr plugins ls 2>/dev/null | awk '$2 == "cri" {print $NF; exit}'; fi
  exit 0; fi
# The runner's liveness is read before its exit record: a runner writes the record before it
# exits, so one found dead with no record after it never wrote one.
r=none
if [ -d "$2/run" ]; then r=starting; pid=$(cat "$2/pid" 2>/dev/null)
  if [ -n "$pid" ]; then r=gone; grep -qF "$2/attempts/" "/proc/$pid/cmdline" 2>/dev/null && r=alive; fi
fi
# The exit record is read before the sentinel: a runner marks success before it writes the
# record, so a success record read here always comes with its mark. In the other order a
# run ending between the two reads looked like commands that never wrote the sentinel.
e=$(head -n 1 "$2/exit" 2>/dev/null)
s=0; { [ -e "$1" ] || [ -e "$2/succeeded" ]; } && s=1; echo "$s"
echo locked
head -n 1 "$2/started" 2>/dev/null || echo
if [ -d "$2/run" ]; then echo ran; else echo notrun; fi
echo "$e"
head -c 300 "$2/prepare-error" 2>/dev/null | tr '\n' ' '; echo
echo "$r"
tail -c ` + strconv.Itoa(outputTail) + ` "$2/log" 2>/dev/null
exit 0`

// readBootstrapState reads the sentinel and the bootstrap directory in one exec.
func (p *Provisioner) readBootstrapState(ctx context.Context, c *docker.Container) (bootstrapState, error) {
	res, err := p.Docker.Exec(ctx, c, nil, "/bin/sh", "-c", bootstrapStateScript, "sh", sentinelPath, bootstrapDir)
	if err != nil {
		return bootstrapState{}, fmt.Errorf("reading the bootstrap state of %s: %w", c.Name, err)
	}
	if res.ExitCode != 0 {
		return bootstrapState{}, fmt.Errorf("reading the bootstrap state of %s: %s", c.Name, res)
	}
	return parseBootstrapState(res.Stdout), nil
}

// parseBootstrapState reads bootstrapStateScript's output. Missing lines read as missing
// files: a lock without a start time, a run without an exit record.
func parseBootstrapState(out string) bootstrapState {
	lines := strings.SplitN(out, "\n", 9)
	line := func(i int) string {
		if i < len(lines) {
			return strings.TrimSpace(lines[i])
		}
		return ""
	}
	st := bootstrapState{succeeded: line(1) == "1"}
	switch line(0) {
	case "ready":
	case "":
		// Nothing said: systemd did not answer yet. Reading that as ready started kubeadm
		// before containerd in a node booting under load (chaos seed 1796339497753572551).
		st.booting = "unreachable"
	default:
		st.booting = line(0)
	}
	if line(2) != "locked" {
		st.runtime = line(3)
		return st
	}
	st.locked = true
	if sec, err := strconv.ParseInt(line(3), 10, 64); err == nil && sec > 0 {
		st.startedAt = time.Unix(sec, 0)
	}
	st.ran = line(4) == "ran"
	if f := strings.Fields(line(5)); len(f) == 2 {
		st.finished = true
		st.command, _ = strconv.Atoi(f[1])
		switch f[0] {
		case exitTimeout:
			st.timedOut, st.exitCode = true, -1
		case exitNeverStarted:
			st.timedOut, st.neverStarted, st.exitCode = true, true, -1
		case exitLost:
			st.lost, st.exitCode = true, -1
		default:
			st.exitCode, _ = strconv.Atoi(f[0])
		}
	}
	st.prepareError = line(6)
	st.runnerGone = line(7) == "gone"
	if len(lines) > 8 {
		st.output = lines[8]
	}
	return st
}
