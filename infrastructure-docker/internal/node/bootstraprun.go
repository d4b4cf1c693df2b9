package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/infrastructure-docker/internal/cloudinit"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/ignition"
)

// The first words of the exit records the provider writes itself (the runner writes
// "<exit code> <command>").
const (
	// exitTimeout: the run was stopped by the timeout.
	exitTimeout = "timeout"
	// exitNeverStarted: the timeout came after the lock and before any run started; the
	// provider claimed the run so that none starts later.
	exitNeverStarted = "neverstarted"
	// exitLost: the runner was gone without an exit record: the node container restarted (with
	// the Docker Engine, or by hand) during the run, or something killed it.
	exitLost = "lost"
)

// exitClaimed is the start script's exit code when the run was already claimed.
const exitClaimed = 3

// The scripts of the protocol's steps (see the package doc); each runs in one exec with the
// bootstrap directory as $1.
var (
	// lockScript creates the directory with the start time in one rename, so that no lock exists
	// without its time; an existing lock is not an error.
	lockScript = `[ -d "$1" ] && exit 0
mkdir -p "$(dirname "$1")" && t=$(mktemp -d "$1.XXXXXX") || exit 1
date +%s > "$t/started" && mv -T "$t" "$1" 2>/dev/null && exit 0
rm -rf "$t"; [ -d "$1" ] && exit 0; exit 1`
	// startScript claims the run and starts the runner of the attempt $2, or exits exitClaimed.
	// setsid detaches the runner from the exec session: it outlives the exec and a restart of
	// the controller. It is the leader of its own process group, so a timeout kills it whole.
	startScript = `mkdir "$1/run" 2>/dev/null || exit ` + strconv.Itoa(exitClaimed) + `
echo "$2" > "$1/run/attempt"
setsid /bin/sh "$2/run.sh" > "$1/log" 2>&1 < /dev/null & echo $! > "$1/pid"`
	// stopScript: see stopBootstrap.
	stopScript = `if mkdir "$1/run" 2>/dev/null; then echo none > "$1/run/attempt"; r=` + exitNeverStarted + `; n=0
else
  [ -s "$1/pid" ] || sleep 1
  pid=$(cat "$1/pid" 2>/dev/null)
  if [ -n "$pid" ] && grep -qF "$1/attempts/" "/proc/$pid/cmdline" 2>/dev/null; then kill -KILL "-$pid" 2>/dev/null; fi
  r=` + exitTimeout + `; ` + lastCommand + `
fi
( set -C; echo "$r ${n:-0}" > "$1/exit" ) 2>/dev/null
exit 0`
	// lostScript records that the runner is gone without an exit record (see recordLostRunner).
	lostScript = lastCommand + `; ( set -C; echo "` + exitLost + ` ${n:-0}" > "$1/exit" ) 2>/dev/null; exit 0`
	// lastCommand sets n to the number of the last command the runner announced in the log.
	lastCommand = `n=$(sed -n 's/^+ \[\([0-9]*\)\].*/\1/p' "$1/log" 2>/dev/null | tail -n 1)`
)

// bootstrapPlan is the bootstrap data made ready to run: the bootcmd commands, the files to
// write (the kubeadm configuration amended for a node container), then the other commands (the
// users' and runcmd), in order.
type bootstrapPlan struct {
	boot     [][]string
	files    []*cloudinit.WriteFile
	commands [][]string
	// kubeadm: the data writes a kubeadm configuration, so the node needs the endpoint route.
	kubeadm bool
}

// The formats of bootstrap data, as the bootstrap contract's "format" key names them.
const (
	formatCloudConfig = "cloud-config"
	formatIgnition    = "ignition"
)

// planBootstrap parses and amends the bootstrap data without touching the node, so that data
// the provider cannot execute is refused before the lock. Every error is such data. format is
// the Secret's "format" (empty means cloud-config, the contract's default). container is the
// node container's name: its hostname and instance ID for the Jinja variables of upstream's
// cloud-config ("## template: jinja"), as upstream CAPD names its node after it.
func planBootstrap(ctx context.Context, data []byte, format, container string) (bootstrapPlan, error) {
	log := ctrl.LoggerFrom(ctx)
	parsed, kubeadmConfig, err := parseBootstrapData(data, format, container)
	if err != nil {
		return bootstrapPlan{}, fmt.Errorf("the bootstrap data cannot be executed: %w", err)
	}
	for _, ig := range parsed.Ignored {
		if ig.Reason != "" {
			log.Info("Skipping a cloud-init module", "key", ig.Key, "line", ig.Line, "reason", ig.Reason)
			continue
		}
		log.Info("Ignoring a cloud-init key without effect in a node container", "key", ig.Key, "line", ig.Line)
	}
	var plan bootstrapPlan
	for _, a := range parsed.Actions {
		switch a := a.(type) {
		case *cloudinit.WriteFile:
			f := *a
			if kubeadmConfig(f.Path) {
				plan.kubeadm = true
				if f.Append {
					log.Info("Not amending a kubeadm configuration that the bootstrap data appends to", "path", f.Path)
				} else if f.Content, err = amendKubeadmConfig(f.Content); err != nil {
					return bootstrapPlan{}, fmt.Errorf("the bootstrap data cannot be executed: amending %s (line %d): %w", f.Path, f.Line, err)
				}
			}
			plan.files = append(plan.files, &f)
		case *cloudinit.RunCommand:
			if a.Boot {
				plan.boot = append(plan.boot, a.Args)
			} else {
				plan.commands = append(plan.commands, a.Args)
			}
		}
	}
	return plan, nil
}

// parseBootstrapData reads data of format into actions, with the test of the kubeadm
// configuration files that format writes.
func parseBootstrapData(data []byte, format, container string) (*cloudinit.Result, func(string) bool, error) {
	switch format {
	case "", formatCloudConfig:
		res, err := cloudinit.Parse(data, cloudinit.InstanceData{Hostname: container, InstanceID: container})
		return res, isKubeadmConfigPath, err
	case formatIgnition:
		res, err := ignition.Parse(data)
		return res, isIgnitionKubeadmConfigPath, err
	}
	return nil, nil, fmt.Errorf("the bootstrap data Secret's format %q is neither %q nor %q", format, formatCloudConfig, formatIgnition)
}

// takeBootstrapLock creates bootstrapDir with the start time in one rename, so that no lock
// exists without its time. A lock another reconcile took meanwhile is not an error: the run's
// claim (startBootstrap) decides which of them starts it.
func (p *Provisioner) takeBootstrapLock(ctx context.Context, c *docker.Container) error {
	ctrl.LoggerFrom(ctx).Info("Taking the bootstrap lock of the node container", "container", c.Name)
	return p.shell(ctx, c, "taking the bootstrap lock", lockScript, bootstrapDir)
}

// startBootstrap stages an attempt of the run in a directory of its own (the files to write
// and the runner script), routes the cluster endpoint when the data runs kubeadm, then claims
// the run and starts the runner in the background in one exec. Two reconciles that race stage
// two attempts; only the one that claims the run starts its runner. Staging writes nothing
// outside the attempt's directory, so an attempt that never starts leaves the node as it was.
func (p *Provisioner) startBootstrap(ctx context.Context, cluster *clusterv1.Cluster, c *docker.Container, plan bootstrapPlan) error {
	log := ctrl.LoggerFrom(ctx)
	token := make([]byte, 8)
	if _, err := rand.Read(token); err != nil {
		return fmt.Errorf("naming the bootstrap attempt: %w", err)
	}
	attempt := bootstrapDir + "/attempts/" + hex.EncodeToString(token)
	for i, f := range plan.files {
		if err := p.Docker.WriteFile(ctx, c, docker.File{Path: stagedFile(attempt, i), Content: f.Content, Mode: 0o600}); err != nil {
			return fmt.Errorf("staging write_files (line %d): %w", f.Line, err)
		}
	}
	if err := p.Docker.WriteFile(ctx, c, docker.File{Path: attempt + "/run.sh", Content: []byte(runnerScript(attempt, plan)), Mode: 0o700}); err != nil {
		return fmt.Errorf("staging the bootstrap runner: %w", err)
	}
	if plan.kubeadm {
		if err := p.routeEndpoint(ctx, cluster, c); err != nil {
			return err
		}
	}
	res, err := p.Docker.Exec(ctx, c, nil, "/bin/sh", "-c", startScript, "sh", bootstrapDir, attempt)
	switch {
	case err != nil:
		return fmt.Errorf("starting the bootstrap commands in %s: %w", c.Name, err)
	case res.ExitCode == exitClaimed:
		log.Info("The bootstrap run was already started by another reconcile", "container", c.Name)
	case res.ExitCode != 0:
		return fmt.Errorf("starting the bootstrap commands in %s: %s", c.Name, res)
	default:
		log.Info("Started the bootstrap commands", "container", c.Name, "bootCommands", len(plan.boot), "files", len(plan.files), "commands", len(plan.commands))
	}
	return nil
}

func stagedFile(attempt string, i int) string { return attempt + "/files/" + strconv.Itoa(i) }

// recordPrepareError keeps the last error between the lock and the run's start in the node,
// for the timeout's message. It is best effort: the error at hand is returned anyway.
func (p *Provisioner) recordPrepareError(ctx context.Context, c *docker.Container, cause error) {
	if err := p.shell(ctx, c, "recording the bootstrap preparation error", `printf '%s\n' "$2" > "$1/prepare-error"`, bootstrapDir, cause.Error()); err != nil {
		ctrl.LoggerFrom(ctx).V(4).Info("Could not record the bootstrap preparation error", "container", c.Name, "error", err.Error())
	}
}

// stopBootstrap ends a bootstrap that ran out of time, for good. Without a run it claims the
// run, so that none starts later, and records that the commands never started; with one it
// kills the runner's process group and records the command that was running. The exit record
// is written once (noclobber): a runner that ended first keeps its own. A runner claimed a
// moment ago may not have written its process ID yet: it is given a second.
// (dash, the nodes' sh, takes no "--" in kill.)
func (p *Provisioner) stopBootstrap(ctx context.Context, c *docker.Container) error {
	return p.shell(ctx, c, "stopping the bootstrap", stopScript, bootstrapDir)
}

// recordLostRunner ends a run whose runner is gone without an exit record, for good, with the
// command it was in: the node may be half bootstrapped (kubeadm init may have run), so it is
// never started again. A record written meanwhile (noclobber) is kept.
func (p *Provisioner) recordLostRunner(ctx context.Context, c *docker.Container) error {
	return p.shell(ctx, c, "recording the end of a lost bootstrap runner", lostScript, bootstrapDir)
}

// shell runs script with args in c and fails on a non-zero exit; what names the step in errors.
func (p *Provisioner) shell(ctx context.Context, c *docker.Container, what, script string, args ...string) error {
	res, err := p.Docker.Exec(ctx, c, nil, append([]string{"/bin/sh", "-c", script, "sh"}, args...)...)
	if err != nil {
		return fmt.Errorf("%s in %s: %w", what, c.Name, err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("%s in %s: %s", what, c.Name, res)
	}
	return nil
}

// runnerScript is the run of one attempt: it runs the bootcmd commands, writes the staged files
// in order (as write_files: parent directories, content or append, mode, owner), then runs the
// other commands in order (commands of both kinds are numbered in one sequence), each
// without a shell of its own (their arguments are quoted), announcing each as "+ [n] command"
// and stopping at the first failure, whose exit code and number it records in exit; "0 0"
// records success, and "succeeded" that the sentinel was there (it is in /run, which a
// container restart empties). A failing file write is recorded as command 0. cloud-init would
// go on after a failing runcmd entry; a node whose kubeadm step failed is not worth
// continuing, so the provider stops there, as upstream CAPD does. The exit record is written
// once (noclobber): after a timeout recorded it, the runner cannot overwrite it.
func runnerScript(attempt string, plan bootstrapPlan) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# Written by the Capstan Docker provider: the bootstrap data, run once (see its internal/node package doc).\n")
	b.WriteString("dir=" + bootstrapDir + "\n")
	b.WriteString(`record() { ( set -C; echo "$1" > "$dir/exit" ) 2>/dev/null; }` + "\n")
	b.WriteString(`[ -e "$dir/exit" ] && exit 0` + "\n")
	b.WriteString(`put() { mkdir -p "$(dirname "$6")" && if [ "$4" = 1 ]; then cat "$5" >> "$6"; else cat "$5" > "$6"; fi && chmod "$2" "$6" && { [ -z "$3" ] || chown "$3" "$6"; }
  rc=$?; if [ "$rc" -ne 0 ]; then echo "write_files (line $1): writing $6 failed"; record "$rc 0"; exit "$rc"; fi; }` + "\n")
	b.WriteString(`step() { n=$1; shift; echo "+ [$n] $*"; "$@"; rc=$?; if [ "$rc" -ne 0 ]; then record "$rc $n"; exit "$rc"; fi; }` + "\n")
	step := 0
	writeStep := func(args []string) {
		step++
		quoted := make([]string, len(args))
		for j, a := range args {
			quoted[j] = shellQuote(a)
		}
		fmt.Fprintf(&b, "step %d %s\n", step, strings.Join(quoted, " "))
	}
	for _, args := range plan.boot {
		writeStep(args)
	}
	for i, f := range plan.files {
		appendFlag := "0"
		if f.Append {
			appendFlag = "1"
		}
		fmt.Fprintf(&b, "put %d %s %s %s %s %s\n", f.Line, docker.OctalMode(f.Permissions), shellQuote(f.Owner), appendFlag,
			shellQuote(stagedFile(attempt, i)), shellQuote(f.Path))
	}
	for _, args := range plan.commands {
		writeStep(args)
	}
	fmt.Fprintf(&b, "[ -e %s ] && : > \"$dir/succeeded\"\n", shellQuote(sentinelPath))
	b.WriteString(`record "0 0"` + "\n")
	return b.String()
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
