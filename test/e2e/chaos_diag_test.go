//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// bootstrapEndReasons are the BootstrapExecSucceeded reasons of a bootstrap that ended for good
// without a node: the Machine waits for its health check, which deletes it and its container.
var bootstrapEndReasons = map[string]bool{"BootstrapFailed": true, "BootstrapTimedOut": true}

// bootstrapFailures remembers, per DockerMachine, the first message of a bootstrap that ended
// without a node. The container goes with the remediation, so this message (with the output
// tail of the command that failed or hung) is the only record of why a join did not finish.
type bootstrapFailures struct {
	mu   sync.Mutex
	seen map[string]string
	done chan struct{}
}

// recordBootstrapFailures polls the namespace's DockerMachines every 10 s until ctx ends. A
// poll suffices for a diagnostic: the failure stays on the DockerMachine for the health
// check's startup timeout (15 minutes here) before remediation removes it.
func (s *suite) recordBootstrapFailures(ctx context.Context) *bootstrapFailures {
	f := &bootstrapFailures{seen: map[string]string{}, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		for {
			f.poll(ctx, s)
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Second):
			}
		}
	}()
	return f
}

func (f *bootstrapFailures) poll(ctx context.Context, s *suite) {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("infrastructure.cluster.x-k8s.io/v1beta2")
	list.SetKind("DockerMachineList")
	if err := s.mgmt.List(ctx, list, client.InNamespace(s.ns)); err != nil {
		return // the apiserver restarts under chaos; the next poll sees the same state
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range list.Items {
		o := &list.Items[i]
		if _, ok := f.seen[o.GetName()]; ok {
			continue
		}
		for _, c := range unstructuredConditions(o) {
			if c.Type == "BootstrapExecSucceeded" && c.Status == "False" && bootstrapEndReasons[c.Reason] {
				f.seen[o.GetName()] = fmt.Sprintf("%s at %s: %s: %s", o.GetName(), time.Now().UTC().Format(time.TimeOnly), c.Reason, c.Message)
			}
		}
	}
}

// Messages waits for the poller to stop (its ctx ended) and returns what it saw.
func (f *bootstrapFailures) Messages() []string {
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.seen))
	for _, m := range f.seen {
		out = append(out, m)
	}
	return out
}
