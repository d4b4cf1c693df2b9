package node

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
)

// Where the bootstrap leaves its traces in the node container.
const (
	// sentinelPath is written by the bootstrap data's last command (the bootstrap contract):
	// once it exists the node is bootstrapped and nothing runs again.
	sentinelPath = "/run/cluster-api/bootstrap-success.complete"
	// bootstrapDir is the bootstrap's lock and record in the node container (see the package
	// doc for the protocol): created atomically, with the start time, when the provider begins a
	// bootstrap, it holds the staged attempts, the run claim, the runner's process ID, its
	// output and the write-once exit record. It is on the node's /var volume, not in /run (a
	// tmpfs that a restart empties), so a container restart in the middle of a bootstrap does
	// not start a second one.
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
// in c has booted it imports the images to pre-load, then takes the lock, stages the files and
// the runner and starts the runner in the background, then polls it. A lock found without a
// run (the provider stopped between the two) is picked up where it stopped: the run is started
// once, or the timeout, counted from the lock, ends it.
// Callers call it again after RequeueAfter until the phase is final, and remember success
// themselves.
func (p *Provisioner) Bootstrap(ctx context.Context, c *docker.Container, o BootstrapOptions) (BootstrapStatus, error) {
	st, err := p.readBootstrapState(ctx, c)
	if err != nil {
		return BootstrapStatus{}, err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultBootstrapTimeout
	}
	if final, ok := finalStatus(st, timeout, o); ok {
		if final.Phase == BootstrapSucceeded {
			ctrl.LoggerFrom(ctx).Info("The node container is bootstrapped", "container", c.Name)
		}
		return final, nil
	}
	switch {
	case st.locked && timedOut(st, timeout):
		if err := p.stopBootstrap(ctx, c); err != nil {
			return BootstrapStatus{}, err
		}
		return runningStatus(time.Millisecond), nil // report what stopBootstrap recorded
	case st.ran && st.runnerGone:
		if err := p.recordLostRunner(ctx, c); err != nil {
			return BootstrapStatus{}, err
		}
		return runningStatus(time.Millisecond), nil // report what recordLostRunner recorded
	case st.ran:
		return runningStatus(bootstrapPoll), nil
	case st.booting != "":
		return BootstrapStatus{Phase: BootstrapWaitingForContainer, Message: fmt.Sprintf(
			"Waiting for systemd in the node container to finish booting (state %q): nothing is written before it mounted /run", st.booting),
			RequeueAfter: bootstrapPoll}, nil
	}
	if !st.locked && st.runtime == "error" {
		return p.restartRuntime(ctx, c)
	}
	if !st.locked && len(o.PreLoadImages) > 0 {
		// Before the lock: a node whose images cannot be imported has run nothing yet.
		waiting, err := p.preLoadImages(ctx, c, o)
		if err != nil {
			return BootstrapStatus{}, err
		}
		if waiting != nil {
			return *waiting, nil
		}
	}
	return p.beginBootstrap(ctx, c, o, st.locked)
}

// finalStatus is the status of a bootstrap that ended, with ok; ok is false while it has not.
func finalStatus(st bootstrapState, timeout time.Duration, o BootstrapOptions) (BootstrapStatus, bool) {
	switch {
	case st.succeeded:
		return BootstrapStatus{Phase: BootstrapSucceeded}, true
	case st.finished && st.exitCode == 0:
		return BootstrapStatus{Phase: BootstrapFailed, Message: fmt.Sprintf(
			"The bootstrap commands succeeded but none wrote %s, which the bootstrap contract requires of the bootstrap data; output tail:\n%s", sentinelPath, st.output)}, true
	case st.timedOut && st.neverStarted:
		msg := fmt.Sprintf("The bootstrap began at %s but its commands were never started within %s (%s): the provider was stopped or could not prepare the node after it took the bootstrap lock",
			st.startedAt.UTC().Format(time.RFC3339), timeout, o.TimeoutSource)
		if st.prepareError != "" {
			msg += "; last error: " + st.prepareError
		}
		return BootstrapStatus{Phase: BootstrapTimedOut, Message: msg + "; nothing ran in the node, and it is not bootstrapped again: " + o.Replace}, true
	case st.lost:
		return BootstrapStatus{Phase: BootstrapFailed, Message: fmt.Sprintf(
			"The bootstrap runner stopped during command %d without recording how it ended: the node container was restarted (e.g. with the Docker Engine) or the runner was killed; the node may be half bootstrapped and is not bootstrapped again: %s; output tail:\n%s",
			st.command, o.Replace, st.output)}, true
	case st.timedOut:
		return BootstrapStatus{Phase: BootstrapTimedOut, Message: fmt.Sprintf(
			"The bootstrap did not finish within %s (%s); command %d was stopped; %s; output tail:\n%s", timeout, o.TimeoutSource, st.command, o.Replace, st.output)}, true
	case st.finished:
		return BootstrapStatus{Phase: BootstrapFailed, Message: fmt.Sprintf(
			"Bootstrap command %d exited with %d; the node is not bootstrapped and will not be retried (%s); output tail:\n%s",
			st.command, st.exitCode, o.Replace, st.output)}, true
	}
	return BootstrapStatus{}, false
}

func runningStatus(requeueAfter time.Duration) BootstrapStatus {
	return BootstrapStatus{Phase: BootstrapRunning, Message: "Running the bootstrap commands in the node container", RequeueAfter: requeueAfter}
}

// beginBootstrap reads and plans the bootstrap data, takes the lock unless locked, and stages
// and starts the run. Bootstrap data that cannot be executed fails before the lock when there
// is none yet: nothing ran, and the Secret may be fixed or replaced (its update is not watched).
// An error after the lock is recorded in the node for the timeout's message and returned: the
// next reconcile tries again, until the timeout.
func (p *Provisioner) beginBootstrap(ctx context.Context, c *docker.Container, o BootstrapOptions, locked bool) (BootstrapStatus, error) {
	data, format, err := p.bootstrapData(ctx, o.DataSecret)
	if err != nil {
		return BootstrapStatus{}, err
	}
	plan, err := planBootstrap(ctx, data, format, c.Name)
	if err != nil {
		return BootstrapStatus{Phase: BootstrapFailed, Message: err.Error(), RequeueAfter: dataRetry}, nil
	}
	if !locked {
		if err := p.takeBootstrapLock(ctx, c); err != nil {
			return BootstrapStatus{}, err
		}
	}
	if err := p.startBootstrap(ctx, o.Cluster, c, plan); err != nil {
		p.recordPrepareError(ctx, c, err)
		return BootstrapStatus{}, err
	}
	return runningStatus(bootstrapPoll), nil
}

// timedOut reports whether the bootstrap began longer than timeout ago. An unknown start time
// (a lock of an earlier version, taken but with no time written) counts as timed out.
func timedOut(st bootstrapState, timeout time.Duration) bool {
	return st.startedAt.IsZero() || time.Since(st.startedAt) > timeout
}

// bootstrapData reads a bootstrap data Secret live (key "value", and the format from the
// optional key "format" of the bootstrap contract): the manager caches no Secret.
func (p *Provisioner) bootstrapData(ctx context.Context, key client.ObjectKey) (data []byte, format string, err error) {
	secret := &corev1.Secret{}
	if err := p.APIReader.Get(ctx, key, secret); err != nil {
		return nil, "", fmt.Errorf("reading the bootstrap data Secret %s: %w", key, err)
	}
	data, ok := secret.Data["value"]
	if !ok {
		return nil, "", fmt.Errorf("the bootstrap data Secret %s has no key \"value\"", key)
	}
	return data, string(secret.Data["format"]), nil
}
