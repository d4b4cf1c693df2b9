package bench

import (
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"capstan.dev/contracts/envtest"
)

// write is one write the API server answered, as the audit log records it.
type write struct {
	At        time.Time
	User      string
	Verb      string
	Resource  string // resource or resource/subresource
	Namespace string
	Code      int
}

// auditLog follows the API server's audit log, which grows through the run; it
// keeps every write (a few tens of thousands of small records in a full run).
type auditLog struct {
	path   string
	mu     sync.Mutex
	offset int64
	writes []write
}

// refresh reads the events written since the last call.
func (a *auditLog) refresh() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	f, err := os.Open(a.path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(a.offset, io.SeekStart); err != nil {
		return err
	}
	n, err := envtest.ReadAuditEvents(f, func(e envtest.AuditEvent) {
		if e.ByAPIServer() {
			return
		}
		a.writes = append(a.writes, write{At: e.StageTimestamp, User: e.User.Username, Verb: e.Verb,
			Resource: e.Resource(), Namespace: e.ObjectRef.Namespace, Code: e.ResponseStatus.Code})
	})
	a.offset += n
	return err
}

// between returns the writes by any of users (by anyone but the API server itself
// when none is given) completed in [from, to), reading the log first.
func (a *auditLog) between(from, to time.Time, users ...string) ([]write, error) {
	if err := a.refresh(); err != nil {
		return nil, fmt.Errorf("reading the audit log: %w", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []write
	for _, w := range a.writes {
		if !w.At.Before(from) && w.At.Before(to) {
			out = append(out, w)
		}
	}
	if len(users) == 0 {
		return out, nil
	}
	return byUser(out, users...), nil
}

// byUser returns the writes made by any of users.
func byUser(writes []write, users ...string) []write {
	want := map[string]bool{}
	for _, u := range users {
		want[u] = true
	}
	var out []write
	for _, w := range writes {
		if want[w.User] {
			out = append(out, w)
		}
	}
	return out
}

// quietSince waits until users have written nothing for quiet (bounded by
// timeout) and returns when their last write was: the end of a scenario's writes.
func (a *auditLog) quietSince(quiet, timeout time.Duration, from time.Time, users ...string) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	for {
		writes, err := a.between(from, time.Now().Add(time.Second), users...)
		if err != nil {
			return time.Time{}, err
		}
		last := from
		for _, w := range writes {
			if w.At.After(last) {
				last = w.At
			}
		}
		if time.Since(last) >= quiet {
			return last, nil
		}
		if time.Now().After(deadline) {
			return last, fmt.Errorf("still writing %s after the scenario ended (last write %s ago)", timeout, time.Since(last).Round(time.Millisecond))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// verbResourceCount is how often one verb was applied to one resource.
type verbResourceCount struct {
	Verb, Resource string
	Count          int
}

// byVerbAndResource counts writes per verb and resource, most frequent first.
func byVerbAndResource(writes []write) []verbResourceCount {
	counts := map[[2]string]int{}
	for _, w := range writes {
		counts[[2]string{w.Verb, w.Resource}]++
	}
	out := make([]verbResourceCount, 0, len(counts))
	for k, n := range counts {
		out = append(out, verbResourceCount{Verb: k[0], Resource: k[1], Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Verb+out[i].Resource < out[j].Verb+out[j].Resource
	})
	return out
}
