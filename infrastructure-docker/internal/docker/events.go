package docker

import (
	"context"
	"fmt"

	"github.com/docker/docker/api/types/events"
)

// ContainerEvent says that one of the plane's containers started, stopped or went away.
type ContainerEvent struct {
	// Action is Docker's action word: start, die, destroy.
	Action string
	Name   string
	Owner  Owner
	Role   Role
}

// WatchContainers streams start, die and destroy events of the plane's containers until ctx ends
// or the stream fails; the error channel then carries the reason (nil when ctx ended). Callers
// re-list after a failure: events that happened while not watching are lost.
func (r *Runtime) WatchContainers(ctx context.Context) (<-chan ContainerEvent, <-chan error) {
	f := r.filter(nil)
	f.Add("type", string(events.ContainerEventType))
	for _, a := range []events.Action{events.ActionStart, events.ActionDie, events.ActionDestroy} {
		f.Add("event", string(a))
	}
	msgs, errs := r.cli.Events(ctx, events.ListOptions{Filters: f})
	out := make(chan ContainerEvent)
	done := make(chan error, 1)
	go func() {
		defer close(out)
		for {
			select {
			case <-ctx.Done():
				done <- nil
				return
			case err := <-errs:
				if ctx.Err() != nil {
					err = nil
				} else if err != nil {
					err = fmt.Errorf("watching Docker events: %w", err)
				}
				done <- err
				return
			case m := <-msgs:
				attrs := m.Actor.Attributes
				if !r.owns(attrs) {
					continue
				}
				ev := ContainerEvent{Action: string(m.Action), Name: attrs["name"],
					Owner: Owner{Namespace: attrs[ClusterNamespaceLabel], Cluster: attrs[ClusterLabel]}, Role: Role(attrs[RoleLabel])}
				select {
				case out <- ev:
				case <-ctx.Done():
					done <- nil
					return
				}
			}
		}
	}()
	return out, done
}
