// Package deletecluster deletes a Cluster through the API and, on request, waits
// until it is gone. Deleting the Cluster object is all a client does: the core and
// the providers delete the workers, the control plane and the infrastructure, in
// that order, and finally remove the Cluster's finalizer. While waiting, the
// package reports progress as the Cluster's Deleting condition and its remaining
// Machines change, and on timeout names what is left. It deletes nothing but the
// Cluster and never removes finalizers.
package deletecluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/capstanctl/clusterclient"
)

// DefaultInterval is how often Wait re-reads the Cluster and its Machines.
const DefaultInterval = time.Second

// Delete deletes Cluster namespace/name; a missing Cluster is an error.
func Delete(ctx context.Context, c client.Client, namespace, name string) error {
	cluster, err := clusterclient.GetCluster(ctx, c, namespace, name)
	if err != nil {
		return err
	}
	if err := c.Delete(ctx, cluster); err != nil && !apierrors.IsNotFound(err) {
		return clusterclient.Explain(err, fmt.Sprintf("deleting Cluster %s/%s", namespace, name))
	}
	return nil
}

// state is what is left of a Cluster being deleted.
type state struct {
	gone            bool
	finalizers      []string
	machines        []string
	deletingMessage string
	hasDeleting     bool
}

// progress is the line printed when the state changes.
func (s state) progress() string {
	deleting := "no Deleting condition yet"
	if s.hasDeleting {
		deleting = "Deleting: " + oneLine(s.deletingMessage)
	}
	machines := "no Machines left"
	if len(s.machines) > 0 {
		machines = fmt.Sprintf("%d Machine(s) left: %s", len(s.machines), strings.Join(s.machines, ", "))
	}
	return deleting + "; " + machines
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "(no message)"
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

func read(ctx context.Context, c client.Reader, namespace, name string) (state, error) {
	cluster := &clusterv1.Cluster{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return state{gone: true}, nil
		}
		return state{}, clusterclient.Explain(err, fmt.Sprintf("Cluster %s/%s", namespace, name))
	}
	s := state{finalizers: slices.Sorted(slices.Values(cluster.Finalizers))}
	if cond := meta.FindStatusCondition(cluster.Status.Conditions, clusterv1.ClusterDeletingCondition); cond != nil {
		s.hasDeleting, s.deletingMessage = true, cond.Message
	}
	machines := &clusterv1.MachineList{}
	if err := c.List(ctx, machines, client.InNamespace(namespace)); err != nil {
		return state{}, clusterclient.Explain(err, "Machines in namespace "+namespace)
	}
	for _, m := range machines.Items {
		if m.Spec.ClusterName == name {
			s.machines = append(s.machines, m.Name)
		}
	}
	slices.Sort(s.machines)
	return s, nil
}

// Wait re-reads the Cluster every interval until it is gone, printing a line to
// out whenever its Deleting condition message or its set of Machines changes.
// After timeout it returns an error naming what remains. A failed read does not
// end the wait (the API server may be briefly unreachable); the last such error is
// reported if the wait times out.
func Wait(ctx context.Context, c client.Reader, namespace, name string, timeout, interval time.Duration, out io.Writer) error {
	if interval <= 0 {
		interval = DefaultInterval
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(interval)
	defer tick.Stop()

	key := namespace + "/" + name
	var last state
	var lastLine string
	var lastErr error
	seen := false
	for {
		s, err := read(ctx, c, namespace, name)
		switch {
		case err != nil:
			lastErr = err
		case s.gone:
			fmt.Fprintf(out, "Cluster %s deleted\n", key)
			return nil
		default:
			lastErr, last, seen = nil, s, true
			if line := s.progress(); line != lastLine {
				fmt.Fprintf(out, "Cluster %s is being deleted: %s\n", key, line)
				lastLine = line
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped waiting for Cluster %s to be deleted: %w; its deletion goes on", key, ctx.Err())
		case <-deadline.C:
			return timeoutError(namespace, name, timeout, last, seen, lastErr)
		case <-tick.C:
		}
	}
}

func timeoutError(namespace, name string, timeout time.Duration, s state, seen bool, lastErr error) error {
	key := namespace + "/" + name
	var b strings.Builder
	fmt.Fprintf(&b, "Cluster %s still exists after %s", key, timeout)
	if seen {
		fmt.Fprintf(&b, ": remaining: Cluster %s", key)
		if len(s.finalizers) > 0 {
			fmt.Fprintf(&b, " (finalizers: %s)", strings.Join(s.finalizers, ", "))
		}
		if len(s.machines) > 0 {
			fmt.Fprintf(&b, ", Machines: %s", strings.Join(s.machines, ", "))
		}
		if s.hasDeleting {
			fmt.Fprintf(&b, "; Deleting condition: %q", oneLine(s.deletingMessage))
		} else {
			b.WriteString("; the Cluster has no Deleting condition: is the core controller running?")
		}
	}
	if lastErr != nil {
		fmt.Fprintf(&b, "; last error: %v", lastErr)
	}
	fmt.Fprintf(&b, ". Its deletion goes on; see what blocks it with 'capstanctl describe cluster %s -n %s --show-conditions all'",
		name, namespace)
	return errors.New(b.String())
}
