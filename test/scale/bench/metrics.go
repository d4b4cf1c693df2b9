package bench

import (
	"context"
	"fmt"
	"net/http"
	"sort"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Where the core's time goes, from its own metrics (controller-runtime's, which any core
// built on it exposes): per controller, how many reconciles a scenario took, how many
// of its workers they kept busy on average, and how long requests waited in its queue
// (client-side rate-limit waits over 1 s are in the core's log). A controller whose
// workers are all busy while the CPU is not is bound by waiting (on the API server, on
// its cache); one with idle workers and a long queue wait is bound by what enqueues it.

// scrape reads the manager's /metrics, in the text exposition format.
func (c *coreManager) scrape(ctx context.Context) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+c.metricsAddr+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET http://%s/metrics: %s", c.metricsAddr, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading http://%s/metrics: %w", c.metricsAddr, err)
	}
	return families, nil
}

// controllerWork is what one controller's metrics have counted so far.
type controllerWork struct {
	Reconciles, ReconcileSeconds float64
	QueueSeconds, QueueAdds      float64
	Workers                      float64
}

// coreWork is the core's controllers' work at one instant, by controller name.
type coreWork struct {
	Controllers map[string]*controllerWork
}

// sampleWork reads the core's metrics; a core without them yields an empty sample.
func (r *run) sampleWork(ctx context.Context) coreWork {
	families, err := r.core.scrape(ctx)
	if err != nil {
		r.logf("reading the core's metrics: %v", err)
		return coreWork{Controllers: map[string]*controllerWork{}}
	}
	return workFrom(families)
}

// workFrom adds up controller-runtime's per-controller metrics: reconciles (every
// result), the reconcile-time and queue-wait histograms' sums and counts, the workers.
func workFrom(families map[string]*dto.MetricFamily) coreWork {
	w := coreWork{Controllers: map[string]*controllerWork{}}
	each := func(family, label string, add func(*controllerWork, *dto.Metric)) {
		for _, m := range families[family].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() != label {
					continue
				}
				if w.Controllers[l.GetValue()] == nil {
					w.Controllers[l.GetValue()] = &controllerWork{}
				}
				add(w.Controllers[l.GetValue()], m)
			}
		}
	}
	each("controller_runtime_reconcile_total", "controller", func(c *controllerWork, m *dto.Metric) {
		c.Reconciles += m.GetCounter().GetValue()
	})
	each("controller_runtime_reconcile_time_seconds", "controller", func(c *controllerWork, m *dto.Metric) {
		c.ReconcileSeconds += m.GetHistogram().GetSampleSum()
	})
	each("controller_runtime_max_concurrent_reconciles", "controller", func(c *controllerWork, m *dto.Metric) {
		c.Workers = m.GetGauge().GetValue()
	})
	each("workqueue_queue_duration_seconds", "name", func(c *controllerWork, m *dto.Metric) {
		c.QueueSeconds += m.GetHistogram().GetSampleSum()
		c.QueueAdds += float64(m.GetHistogram().GetSampleCount())
	})
	return w
}

// busiestControllers is how many controllers a scenario reports, the busiest first.
const busiestControllers = 4

// reportWork adds, for the busiest controllers between two samples, their reconciles,
// the workers they kept busy on average, the mean reconcile time and the mean wait in
// the queue.
func (r *run) reportWork(scenario string, from, to coreWork, wall float64) {
	type delta struct {
		name string
		controllerWork
	}
	var deltas []delta
	for name, after := range to.Controllers {
		before := from.Controllers[name]
		if before == nil {
			before = &controllerWork{}
		}
		d := delta{name, controllerWork{
			Reconciles: after.Reconciles - before.Reconciles, ReconcileSeconds: after.ReconcileSeconds - before.ReconcileSeconds,
			QueueSeconds: after.QueueSeconds - before.QueueSeconds, QueueAdds: after.QueueAdds - before.QueueAdds,
			Workers: after.Workers,
		}}
		if name != "" && d.Reconciles > 0 {
			deltas = append(deltas, d)
		}
	}
	sort.Slice(deltas, func(i, j int) bool { return deltas[i].ReconcileSeconds > deltas[j].ReconcileSeconds })
	for _, d := range deltas[:min(len(deltas), busiestControllers)] {
		prefix := "core controller " + d.name + ": "
		r.report.add(Figure{Scenario: scenario, Name: prefix + "reconciles", Value: d.Reconciles})
		r.report.add(Figure{Scenario: scenario, Name: fmt.Sprintf("%sworkers busy on average (of %.0f)", prefix, d.Workers),
			Value: d.ReconcileSeconds / wall})
		r.report.add(Figure{Scenario: scenario, Name: prefix + "mean reconcile time", Value: d.ReconcileSeconds / d.Reconciles, Unit: "s"})
		if d.QueueAdds > 0 {
			r.report.add(Figure{Scenario: scenario, Name: prefix + "mean wait in its queue", Value: d.QueueSeconds / d.QueueAdds, Unit: "s"})
		}
	}
}
