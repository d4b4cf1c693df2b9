package bench

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"
)

// Outcome is one scenario's headline figures for the core under test, the ones the
// side-by-side report (make bench-upstream) sets against another core's: how long it
// took, what the core wrote per object by verb, the CPU it spent and its peak memory.
// A scenario that did not finish has Unfinished saying how far it got instead.
type Outcome struct {
	// Scenario is the scenario's name in AllScenarios; Title its heading in the report.
	Scenario string `json:"scenario"`
	Title    string `json:"title"`
	// WallSeconds is the scenario's timed span; 0 when it has none (steady state, foreign objects).
	WallSeconds float64 `json:"wallSeconds,omitempty"`
	// Per is what the writes are counted per ("Machine", "replaced Machine", "minute").
	Per string `json:"per,omitempty"`
	// Writes are the core's writes per Per, by verb (create, update, patch, delete, …); nil
	// when the scenario does not count writes.
	Writes map[string]float64 `json:"writes,omitempty"`
	// CPUSeconds is the core's CPU time over the scenario.
	CPUSeconds float64 `json:"cpuSeconds,omitempty"`
	// PeakRSSMiB is the core's peak resident memory (VmHWM) at the scenario's end.
	PeakRSSMiB float64 `json:"peakRSSMiB,omitempty"`
	// Extra are figures of the scenario only it has (e.g. memory with foreign objects).
	Extra []Figure `json:"extra,omitempty"`
	// Unfinished is empty when the scenario finished, else how far it got ("> 15m0s: 999/1000 …").
	Unfinished string `json:"unfinished,omitempty"`
}

// WriteVerbs are the verbs every side-by-side row shows, even at 0, in this order.
var WriteVerbs = []string{"create", "update", "patch", "delete"}

// perVerb counts writes per verb, divided by n.
func perVerb(writes []write, n float64) map[string]float64 {
	counts := map[string]int{}
	for _, v := range WriteVerbs {
		counts[v] = 0
	}
	for _, w := range writes {
		counts[w.Verb]++
	}
	out := make(map[string]float64, len(counts))
	for v, c := range counts { // divided once: a sum of 1/n shows 10 of 10 as 0.999…
		out[v] = float64(c) / n
	}
	return out
}

// total is the sum of the writes of every verb.
func (o Outcome) total() float64 {
	sum := 0.0
	for _, n := range o.Writes {
		sum += n
	}
	return sum
}

// verbs are the verbs of o's writes: WriteVerbs, then any other the core used, sorted.
func (o Outcome) verbs() []string {
	var others []string
	for v := range o.Writes {
		if !slices.Contains(WriteVerbs, v) {
			others = append(others, v)
		}
	}
	sort.Strings(others)
	return append(append([]string(nil), WriteVerbs...), others...)
}

// notFinishedError is a wait that ran out of the scenario's time: the side-by-side
// report shows it as the bound and the progress, not as a failed run.
type notFinishedError struct {
	what     string
	timeout  time.Duration
	progress error
}

func (e *notFinishedError) Error() string {
	return fmt.Sprintf("not %s within %s: %v", e.what, e.timeout, e.progress)
}

func (e *notFinishedError) Unwrap() error { return e.progress }

// unfinished is how the side-by-side report shows a scenario that ended with err.
func unfinished(err error) string {
	if nf := (*notFinishedError)(nil); errors.As(err, &nf) {
		return fmt.Sprintf("> %s: %v", nf.timeout, nf.progress)
	}
	return "failed: " + err.Error()
}

// addOutcome records a scenario's outcome; a scenario records one at most (the first).
func (r *Report) addOutcome(o Outcome) {
	for _, have := range r.Outcomes {
		if have.Scenario == o.Scenario {
			return
		}
	}
	r.Outcomes = append(r.Outcomes, o)
}

// title is the heading of a scenario in the reports, with the run's sizes.
func (c Config) title(scenario string) string {
	switch scenario {
	case ScenarioFloor:
		return "1 Floor"
	case ScenarioMachines:
		return fmt.Sprintf("2 %d Machines", c.MachineDeployments*c.Replicas)
	case ScenarioRollout:
		return "3 Rollout"
	case ScenarioClusters:
		return fmt.Sprintf("4 %d Clusters", c.Clusters)
	case ScenarioDeletion:
		return "5 Deletion"
	case ScenarioForeign:
		return "6 Memory vs. foreign objects"
	case ScenarioSteady:
		return "7 Steady state"
	}
	return scenario
}

// timedOutcome is the outcome of a timed scenario (2, 3, 5): the core's writes per object
// over its span, its CPU between the scenario's two probes and its peak memory now.
func (r *run) timedOutcome(scenario, per string, n int, took time.Duration, core []write, from, to probe) {
	o := Outcome{Scenario: scenario, Title: r.cfg.title(scenario), WallSeconds: took.Seconds(), Per: per,
		Writes: perVerb(core, float64(n)), CPUSeconds: coreCPU(from, to)}
	if u, err := r.core.usage(); err == nil {
		o.PeakRSSMiB = mib(u.PeakBytes)
	}
	r.report.addOutcome(o)
}

// coreCPU is the core's CPU seconds between two probes.
func coreCPU(from, to probe) float64 {
	const core = "core manager"
	before, ok := from.cpu.Processes[core]
	if !ok {
		return 0
	}
	return to.cpu.Processes[core] - before
}
