//go:build e2e

package e2e

import (
	"fmt"
	"sync"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// machineEvents records, from the moment it starts, every watch event of a namespace's
// Machines that adds or deletes one (or marks it deleted): no Machine may be replaced while it
// runs (a provider's upgrade, a move without status).
type machineEvents struct {
	mu     sync.Mutex
	events []string
	w      watch.Interface
	done   chan struct{}
}

func watchMachineEvents(s *suite, c client.WithWatch, ns string) *machineEvents {
	list := &clusterv1.MachineList{}
	require.NoError(s.t, c.List(s.ctx, list, client.InNamespace(ns)))
	w, err := c.Watch(s.ctx, &clusterv1.MachineList{}, client.InNamespace(ns),
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}})
	require.NoError(s.t, err)
	me := &machineEvents{w: w, done: make(chan struct{})}
	go func() {
		defer close(me.done)
		for ev := range w.ResultChan() {
			if m, ok := ev.Object.(*clusterv1.Machine); ok && (ev.Type == watch.Added || ev.Type == watch.Deleted || m.DeletionTimestamp != nil) {
				me.mu.Lock()
				me.events = append(me.events, fmt.Sprintf("%s Machine %s (deleting: %t)", ev.Type, m.Name, m.DeletionTimestamp != nil))
				me.mu.Unlock()
			}
		}
	}()
	return me
}

// stop ends the watch and returns what it saw; the watch must still have been open.
func (me *machineEvents) stop() []string {
	select {
	case <-me.done:
		return []string{"the Machine watch closed before the end: events may have been missed"}
	default:
	}
	me.w.Stop()
	<-me.done
	me.mu.Lock()
	defer me.mu.Unlock()
	return me.events
}
