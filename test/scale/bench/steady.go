package bench

import (
	"context"
	"fmt"
	"time"

	"k8s.io/utils/ptr"
)

// steady is scenario 7: with the Machines of scenario 2 converged, what the core
// writes and spends per minute at rest. Goal: no write at all.
func (r *run) steady(ctx context.Context, settled time.Time) error {
	before, err := r.core.usage()
	if err != nil {
		return err
	}
	from := time.Now()
	r.logf("Steady state: watching for %s (the core's last write was %s ago)", r.cfg.SteadyWindow, from.Sub(settled).Round(time.Second))
	if err := sleep(ctx, r.cfg.SteadyWindow); err != nil {
		return err
	}
	to := time.Now()
	after, err := r.core.usage()
	if err != nil {
		return err
	}
	_, core, providerWrites, err := r.writes(from, to)
	if err != nil {
		return err
	}
	minutes := to.Sub(from).Minutes()
	scenario := r.cfg.title(ScenarioSteady)
	perMinute := float64(len(core)) / minutes
	r.report.add(Figure{Scenario: scenario, Name: fmt.Sprintf("core writes per minute (over %s)", r.cfg.SteadyWindow),
		Value: perMinute, Goal: "0", Met: ptr.To(len(core) == 0)})
	for _, c := range byVerbAndResource(core) {
		r.report.add(Figure{Scenario: scenario, Name: fmt.Sprintf("  %s %s", c.Verb, c.Resource), Value: float64(c.Count) / minutes})
	}
	r.report.add(Figure{Scenario: scenario, Name: "scale provider writes per minute", Value: float64(len(providerWrites)) / minutes})
	r.report.add(Figure{Scenario: scenario, Name: "core manager CPU at rest",
		Value: 100 * (after.CPUSeconds - before.CPUSeconds) / to.Sub(from).Seconds(), Unit: "% of a core"})
	r.report.add(Figure{Scenario: scenario, Name: "core manager RSS at rest", Value: mib(after.RSSBytes), Unit: "MiB"})
	r.report.addOutcome(Outcome{Scenario: ScenarioSteady, Title: scenario, Per: "minute", Writes: perVerb(core, minutes),
		CPUSeconds: after.CPUSeconds - before.CPUSeconds, PeakRSSMiB: mib(after.PeakBytes)})
	return nil
}
