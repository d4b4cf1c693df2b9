package docker

import (
	"context"
	"fmt"
	"time"

	"github.com/docker/docker/api/types/events"
)

// ContainerEvent says that one of the plane's containers started, stopped or went away.
type ContainerEvent struct {
	// Action is Docker's action word: start, die, destroy.
	Action string
	Name   string
	Owner  Owner
	Role   Role
	// Labels are the container's labels.
	Labels map[string]string
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
					Owner: Owner{Namespace: attrs[ClusterNamespaceLabel], Cluster: attrs[ClusterLabel]}, Role: Role(attrs[RoleLabel]),
					Labels: attrs}
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

// FollowContainers calls handle for each event of WatchContainers until ctx ends or handle
// returns false. When the stream fails it reports the error to onError, waits a second and
// watches again, first calling resync (when not nil): events missed meanwhile are lost, so the
// caller re-lists; resync returning false stops too.
func (r *Runtime) FollowContainers(ctx context.Context, onError func(error), resync func() bool, handle func(ContainerEvent) bool) {
	for first := true; ctx.Err() == nil; first = false {
		if !first && resync != nil && !resync() {
			return
		}
		events, errs := r.WatchContainers(ctx)
		for ev := range events {
			if !handle(ev) {
				return
			}
		}
		if err := <-errs; err != nil {
			onError(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}
