package patch

import (
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
)

// DefaultSummaryInterval is how long a summary's counters may lag while they move.
const DefaultSummaryInterval = 10 * time.Second

// DefaultSummaryMaxInterval caps how far the spacing of counter-only writes grows.
const DefaultSummaryMaxInterval = 60 * time.Second

// SummaryLimiter spaces the status writes of objects that summarise others (a MachineSet or
// MachineDeployment counting its Machines) when all that changed is a counter or a message:
// such a status moves with every Machine that progresses, and while a hundred Machines come
// up one at a time it was written once per Machine and more (`make bench`: about 3 writes per
// Machine). A change of any condition's status or reason, or of observedGeneration, is written
// at once; a counter-only change waits until the spacing has passed since the object's last
// status write, and the caller requeues for then, so the final counts are always written.
// The spacing starts at Interval and doubles with every counter-only write in a row, up to
// MaxInterval: counters that move for minutes (a thousand Machines coming up) cost a handful
// of writes, not one per Interval; a write that moves a condition, or a quiet MaxInterval,
// starts it again at Interval. The record of last writes lives in memory: after a restart the
// first write is never held.
type SummaryLimiter struct {
	// Interval is the first spacing of counter-only writes (DefaultSummaryInterval when zero).
	Interval time.Duration
	// MaxInterval caps the spacing (DefaultSummaryMaxInterval when zero).
	MaxInterval time.Duration

	mu   sync.Mutex
	last map[types.UID]summaryWrite
}

// summaryWrite is an object's last status write and how many counter-only writes in a row led
// to it.
type summaryWrite struct {
	at     time.Time
	streak int
}

// Hold returns how long to hold back a status write of the object uid that changes conditions
// from before to after and observedGeneration from beforeGen to afterGen: zero to write it now.
func (l *SummaryLimiter) Hold(uid types.UID, before, after []metav1.Condition, beforeGen, afterGen int64, now time.Time) time.Duration {
	return l.hold(uid, countersOnly(before, after, beforeGen, afterGen), now)
}

// countersOnly reports whether a status change moves no condition and no observedGeneration.
func countersOnly(before, after []metav1.Condition, beforeGen, afterGen int64) bool {
	return beforeGen == afterGen && !ConditionsMoved(before, after)
}

// hold is Hold for a change already classified: only a counter-only change is ever held.
func (l *SummaryLimiter) hold(uid types.UID, counterOnly bool, now time.Time) time.Duration {
	if !counterOnly {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	last, ok := l.last[uid]
	if !ok {
		return 0
	}
	return last.at.Add(l.spacing(last.streak)).Sub(now)
}

// Apply decides one reconcile's status write of a summary object uid: changed says whether the
// status differs from the one read, whose conditions and observedGeneration are before and
// beforeGen. A write that Hold holds back is undone with restore (which puts back the status as
// read) and res asks to come back when it may be written; otherwise the write to come is
// recorded. It returns res, amended.
func (l *SummaryLimiter) Apply(uid types.UID, changed bool, before, after []metav1.Condition, beforeGen, afterGen int64,
	restore func(), res ctrl.Result) ctrl.Result {
	if !changed {
		return res
	}
	now := time.Now()
	counterOnly := countersOnly(before, after, beforeGen, afterGen)
	wait := l.hold(uid, counterOnly, now)
	if wait <= 0 {
		l.record(uid, now, counterOnly)
		return res
	}
	restore()
	if res.RequeueAfter == 0 || wait < res.RequeueAfter {
		res.RequeueAfter = wait
	}
	return res
}

// Wrote records that the object uid's status was written at now with a change that is more
// than counters: the spacing starts again at Interval.
func (l *SummaryLimiter) Wrote(uid types.UID, now time.Time) {
	l.record(uid, now, false)
}

// record notes a status write of uid at now; counterOnly grows the spacing of the next one.
func (l *SummaryLimiter) record(uid types.UID, now time.Time, counterOnly bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		l.last = map[types.UID]summaryWrite{}
	}
	for k, w := range l.last { // forget objects not written for a while: deleted, or steady
		if now.Sub(w.at) > l.maxInterval() {
			delete(l.last, k)
		}
	}
	w := summaryWrite{at: now}
	if prev, ok := l.last[uid]; ok && counterOnly {
		w.streak = prev.streak + 1
	}
	l.last[uid] = w
}

// spacing is the time a counter-only write waits after a write that ended streak counter-only
// writes in a row: Interval doubled streak times, at most MaxInterval.
func (l *SummaryLimiter) spacing(streak int) time.Duration {
	d := l.interval()
	for i := 0; i < streak && d < l.maxInterval(); i++ {
		d *= 2
	}
	return min(d, l.maxInterval())
}

func (l *SummaryLimiter) interval() time.Duration {
	if l.Interval > 0 {
		return l.Interval
	}
	return DefaultSummaryInterval
}

func (l *SummaryLimiter) maxInterval() time.Duration {
	if l.MaxInterval > 0 {
		return max(l.MaxInterval, l.interval())
	}
	return max(DefaultSummaryMaxInterval, l.interval())
}

// ConditionsMoved reports whether a condition appeared, went, or changed its status or
// reason between before and after (a changed message alone does not count).
func ConditionsMoved(before, after []metav1.Condition) bool {
	if len(before) != len(after) {
		return true
	}
	states := make(map[string][2]string, len(before))
	for _, c := range before {
		states[c.Type] = [2]string{string(c.Status), c.Reason}
	}
	for _, c := range after {
		if s, ok := states[c.Type]; !ok || s != [2]string{string(c.Status), c.Reason} {
			return true
		}
	}
	return false
}
