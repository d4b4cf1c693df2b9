package bench

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// rssSettle is what settleRSS calls steady: every manager's resident memory moved by
// at most rssSettleBytes across rssSettleSamples readings rssSettleInterval apart. The
// band is narrow on purpose: a manager that has just started creeps up by about 100 KiB
// a second for a while (the docker manager read 41.8 MiB after 5 s, 43.3 MiB after 20 s and
// settled at 44.9 MiB after 26 s), and reading it during the creep understates its idle
// figure and so overstates what foreign objects add.
const (
	rssSettleSamples  = 5
	rssSettleInterval = time.Second
	rssSettleBytes    = 128 << 10
)

// settleRSS waits until the managers' resident memory stops moving, at most limit,
// and says which one had not settled when limit ran out; it returns the managers'
// last usage, the reading judged steady. A manager that caches what it is shown grows
// while its informers take it in; one that does not stays flat, so a fixed wait spent
// most of its time watching a flat line.
func (r *run) settleRSS(ctx context.Context, managers []namedManager, limit time.Duration) ([]usage, error) {
	start := time.Now()
	history := make([][]int64, len(managers))
	for {
		last, err := usages(managers)
		if err != nil {
			return nil, err
		}
		steady := true
		for i, u := range last {
			history[i] = append(history[i], u.RSSBytes)
			steady = steady && rssSteady(history[i])
		}
		if steady {
			r.logf("  resident memory steady after %s", time.Since(start).Round(time.Second))
			return last, nil
		}
		if time.Since(start) >= limit {
			for i, m := range managers {
				if !rssSteady(history[i]) {
					r.logf("  %s: resident memory still moving after %s (%s); reading it anyway", m.name, limit, rssTail(history[i]))
				}
			}
			return last, nil
		}
		if err := sleep(ctx, rssSettleInterval); err != nil {
			return nil, err
		}
	}
}

// rssSteady reports whether the last rssSettleSamples readings stay within
// rssSettleBytes of their smallest.
func rssSteady(readings []int64) bool {
	if len(readings) < rssSettleSamples {
		return false
	}
	last := readings[len(readings)-rssSettleSamples:]
	lo, hi := last[0], last[0]
	for _, v := range last[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return hi-lo <= rssSettleBytes
}

func rssTail(readings []int64) string {
	if len(readings) > rssSettleSamples {
		readings = readings[len(readings)-rssSettleSamples:]
	}
	parts := make([]string, len(readings))
	for i, v := range readings {
		parts[i] = fmt.Sprintf("%.1f MiB", mib(v))
	}
	return strings.Join(parts, " → ")
}
