package envtest

import (
	"fmt"
	"time"
)

// PollInterval is how often WaitFor re-evaluates its condition.
const PollInterval = 100 * time.Millisecond

// TB is the part of testing.TB the wait helpers need.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// WaitFor polls cond until it returns true or timeout passes, then fails the test
// naming what it waited for and the last error cond returned. cond's errors do not
// end the wait: an object that is not there yet is a normal intermediate state.
func WaitFor(t TB, timeout time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	if err := Poll(timeout, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// Poll is WaitFor without a test: it returns nil once cond is true, or an error
// carrying the last error of cond when timeout passes.
func Poll(timeout time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	var lastErr error
	for {
		ok, err := cond()
		if ok && err == nil {
			return nil
		}
		lastErr = err
		if time.Now().After(deadline) {
			if lastErr != nil {
				return fmt.Errorf("not true after %s: last error: %w", timeout, lastErr)
			}
			return fmt.Errorf("not true after %s", timeout)
		}
		time.Sleep(PollInterval)
	}
}
