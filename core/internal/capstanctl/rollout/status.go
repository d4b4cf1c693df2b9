package rollout

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultInterval is how often Status re-reads the object while it watches.
const DefaultInterval = time.Second

// Progress says how far the rollout is: done, or the line saying what it waits for.
func (s State) Progress() (done bool, line string) {
	switch {
	case s.Generation > s.ObservedGeneration:
		return false, fmt.Sprintf("Waiting for rollout to start: the controller has not observed generation %d yet (observed: %d)...",
			s.Generation, s.ObservedGeneration)
	case s.Desired == nil:
		return false, "Waiting for spec.replicas to be set..."
	}
	want := *s.Desired
	switch {
	case s.UpToDate < want:
		return false, fmt.Sprintf("Waiting for rollout to finish: %d of %d replicas are up to date...", s.UpToDate, want)
	case s.Replicas > s.UpToDate:
		return false, fmt.Sprintf("Waiting for rollout to finish: %d outdated replicas are pending deletion...", s.Replicas-s.UpToDate)
	case s.Available < want:
		return false, fmt.Sprintf("Waiting for rollout to finish: %d of %d updated replicas are available...", s.Available, want)
	case s.Ready < want:
		return false, fmt.Sprintf("Waiting for rollout to finish: %d of %d updated replicas are ready...", s.Ready, want)
	}
	return true, fmt.Sprintf("successfully rolled out: %d of %d replicas up to date and available", s.UpToDate, want)
}

// Stuck says why an unfinished rollout cannot progress without a user, or "" if it can.
func (s State) Stuck(r Ref) string {
	switch {
	case s.Deleting:
		return "it is being deleted"
	case s.PausedBy != "":
		return fmt.Sprintf("it is paused by %s: %s", s.PausedBy, unpauseHint(r, &s))
	case s.PausedCondition != nil:
		return fmt.Sprintf("its Paused condition is True (%s): is its Cluster paused (spec.paused)?", oneLine(*s.PausedCondition))
	}
	return ""
}

func oneLine(s string) string {
	if s = strings.Join(strings.Fields(s), " "); s == "" {
		return "no message"
	}
	return s
}

// StatusOptions say how Status follows a rollout.
type StatusOptions struct {
	// Watch follows the rollout to its end; without it Status prints the current state once.
	Watch bool
	// Timeout bounds the watch; Interval is how often it re-reads the object.
	Timeout, Interval time.Duration
}

// Status prints the rollout's progress to out, a line per change, until it is complete. It fails
// when the rollout is stuck (see Stuck), when the object disappears, and after opts.Timeout. A
// failed read does not end the watch (the API server may be briefly unreachable); the last such
// error is reported on timeout. Without opts.Watch it prints one line and fails only when stuck.
func Status(ctx context.Context, c client.Reader, r Ref, opts StatusOptions, out io.Writer) error {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	deadline := time.NewTimer(opts.Timeout)
	defer deadline.Stop()
	tick := time.NewTicker(opts.Interval)
	defer tick.Stop()
	var lastLine string
	var lastErr error
	for first := true; ; first = false {
		s, err := Read(ctx, c, r)
		switch {
		case err != nil && (first || apierrors.IsNotFound(err)):
			return err
		case err != nil:
			lastErr = err
		default:
			lastErr = nil
			done, line := s.Progress()
			if done {
				_, err := fmt.Fprintf(out, "%s %s\n", r, line)
				return err
			}
			if line != lastLine {
				fmt.Fprintln(out, line)
				lastLine = line
			}
			if why := s.Stuck(r); why != "" {
				return fmt.Errorf("the rollout of %s cannot finish: %s", r, why)
			}
			if !opts.Watch {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped following the rollout of %s: %w; the rollout goes on", r, ctx.Err())
		case <-deadline.C:
			return timeoutError(r, opts.Timeout, lastLine, lastErr)
		case <-tick.C:
		}
	}
}

func timeoutError(r Ref, timeout time.Duration, lastLine string, lastErr error) error {
	var b strings.Builder
	fmt.Fprintf(&b, "the rollout of %s has not finished after %s", r, timeout)
	if lastLine != "" {
		fmt.Fprintf(&b, ": %s", strings.TrimSuffix(lastLine, "..."))
	}
	if lastErr != nil {
		fmt.Fprintf(&b, "; last error: %v", lastErr)
	}
	fmt.Fprintf(&b, ". It goes on; see why with 'kubectl describe %s %s -n %s' (its conditions)", r.Kind.Resource, r.Name, r.Namespace)
	return errors.New(b.String())
}
