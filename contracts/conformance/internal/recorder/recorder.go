// Package recorder runs the conformance kit without failing the test that runs
// it: a Recorder is a conformance.T that notes which checks failed or were
// skipped, and why, so that a test can assert that the kit catches a broken
// provider. It owns nothing else and is internal to the conformance tree.
package recorder

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Outcome is how one (sub)test ended.
type Outcome struct {
	Failed, Skipped bool
	// Messages are the Errorf, Fatalf and Skipf messages, in order.
	Messages []string
}

// Recorder is a conformance.T that records outcomes. Create it with Record.
type Recorder struct {
	name   string
	shared *shared

	mu              sync.Mutex
	failed, skipped bool
	messages        []string
	cleanups        []func()
}

type shared struct {
	t        testing.TB
	mu       sync.Mutex
	outcomes map[string]Outcome
}

// Record runs f with a root Recorder the way `go test` runs a test function (on
// a goroutine of its own, so that Fatalf can end it), then runs the cleanups f
// registered, and returns the Recorder to inspect. Logs go to t.
func Record(t testing.TB, f func(*Recorder)) *Recorder {
	t.Helper()
	r := &Recorder{shared: &shared{t: t, outcomes: map[string]Outcome{}}}
	r.runBody(f)
	return r
}

func (r *Recorder) runBody(f func(*Recorder)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer r.runCleanups()
		f(r)
	}()
	<-done
}

func (r *Recorder) runCleanups() {
	r.mu.Lock()
	cleanups := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
}

// Run runs f as a subtest named name and reports whether it did not fail.
func (r *Recorder) Run(name string, f func(*Recorder)) bool {
	full := name
	if r.name != "" {
		full = r.name + "/" + name
	}
	child := &Recorder{name: full, shared: r.shared}
	child.runBody(f)
	child.mu.Lock()
	out := Outcome{Failed: child.failed, Skipped: child.skipped, Messages: child.messages}
	child.mu.Unlock()
	r.shared.mu.Lock()
	r.shared.outcomes[full] = out
	r.shared.mu.Unlock()
	if out.Failed {
		r.mu.Lock()
		r.failed = true
		r.mu.Unlock()
	}
	return !out.Failed
}

// Helper does nothing: the recorder has no call sites to hide.
func (r *Recorder) Helper() {}

// Logf logs to the real test, prefixed with the subtest name.
func (r *Recorder) Logf(format string, args ...any) {
	r.shared.t.Logf("[%s] %s", r.name, fmt.Sprintf(format, args...))
}

// Errorf records a failure and goes on.
func (r *Recorder) Errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.Logf("FAIL: %s", msg)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.messages = append(r.messages, msg)
}

// Fatalf records a failure and ends the (sub)test's goroutine.
func (r *Recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// Skipf records a skip and ends the (sub)test's goroutine.
func (r *Recorder) Skipf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.Logf("SKIP: %s", msg)
	r.mu.Lock()
	r.skipped = true
	r.messages = append(r.messages, msg)
	r.mu.Unlock()
	runtime.Goexit()
}

// Cleanup registers f to run when the (sub)test ends, last registered first.
func (r *Recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// Failed reports whether this (sub)test or one of its subtests failed.
func (r *Recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// Skipped reports whether this (sub)test was skipped.
func (r *Recorder) Skipped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skipped
}

// Own is how the (sub)test r itself ended: its own messages, not its subtests'.
func (r *Recorder) Own() Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Outcome{Failed: r.failed, Skipped: r.skipped, Messages: append([]string(nil), r.messages...)}
}

// Outcomes returns every subtest's outcome by full name ("Delete").
func (r *Recorder) Outcomes() map[string]Outcome {
	r.shared.mu.Lock()
	defer r.shared.mu.Unlock()
	out := make(map[string]Outcome, len(r.shared.outcomes))
	for k, v := range r.shared.outcomes {
		out[k] = v
	}
	return out
}

// FailedTests returns the names of the failed subtests, sorted.
func (r *Recorder) FailedTests() []string { return r.names(func(o Outcome) bool { return o.Failed }) }

// SkippedTests returns the names of the skipped subtests, sorted.
func (r *Recorder) SkippedTests() []string {
	return r.names(func(o Outcome) bool { return o.Skipped && !o.Failed })
}

// Messages returns the messages of one subtest joined by newlines.
func (r *Recorder) Messages(name string) string {
	return strings.Join(r.Outcomes()[name].Messages, "\n")
}

func (r *Recorder) names(keep func(Outcome) bool) []string {
	var out []string
	for name, o := range r.Outcomes() {
		if keep(o) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
