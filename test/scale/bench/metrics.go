package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Where the core's time goes, from its own metrics (controller-runtime's, which any core
// built on it exposes): per controller, how many reconciles a scenario took, how many
// of its workers they kept busy on average, and how long requests waited in its queue
// (client-side rate-limit waits over 1 s are in the core's log). A controller whose
// workers are all busy while the CPU is not is bound by waiting (on the API server, on
// its cache); one with idle workers and a long queue wait is bound by what enqueues it.

// promSample is one sample of the Prometheus text format.
type promSample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// scrape reads the manager's /metrics.
func (c *coreManager) scrape(ctx context.Context) ([]promSample, error) {
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
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return parsePrometheusText(string(body)), nil
}

// parsePrometheusText reads the samples of the text exposition format; comments and
// lines it cannot read are skipped (the figures built from them then lack that sample).
func parsePrometheusText(text string) []promSample {
	var out []promSample
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s := promSample{Labels: map[string]string{}}
		rest := line
		if i := strings.IndexAny(line, "{ "); i >= 0 && line[i] == '{' {
			s.Name = line[:i]
			end, ok := parseLabels(line[i+1:], s.Labels)
			if !ok {
				continue
			}
			rest = line[i+1+end:]
		} else if i >= 0 {
			s.Name, rest = line[:i], line[i:]
		}
		fields := strings.Fields(rest)
		if s.Name == "" || len(fields) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			continue
		}
		s.Value = v
		out = append(out, s)
	}
	return out
}

// parseLabels reads `a="x",b="y"}` into labels and returns the index after the
// closing brace.
func parseLabels(s string, labels map[string]string) (int, bool) {
	i := 0
	for i < len(s) {
		if s[i] == '}' {
			return i + 1, true
		}
		if s[i] == ',' || s[i] == ' ' {
			i++
			continue
		}
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 || i+eq+1 >= len(s) || s[i+eq+1] != '"' {
			return 0, false
		}
		name := s[i : i+eq]
		i += eq + 2
		var value strings.Builder
		for ; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
			}
			value.WriteByte(s[i])
		}
		if i >= len(s) {
			return 0, false
		}
		labels[name] = value.String()
		i++ // the closing quote
	}
	return 0, false
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
	w := coreWork{Controllers: map[string]*controllerWork{}}
	samples, err := r.core.scrape(ctx)
	if err != nil {
		r.logf("reading the core's metrics: %v", err)
		return w
	}
	get := func(name string) *controllerWork {
		if w.Controllers[name] == nil {
			w.Controllers[name] = &controllerWork{}
		}
		return w.Controllers[name]
	}
	for _, s := range samples {
		controller := s.Labels["controller"]
		switch s.Name {
		case "controller_runtime_reconcile_total":
			get(controller).Reconciles += s.Value
		case "controller_runtime_reconcile_time_seconds_sum":
			get(controller).ReconcileSeconds += s.Value
		case "controller_runtime_max_concurrent_reconciles":
			get(controller).Workers = s.Value
		case "workqueue_queue_duration_seconds_sum":
			get(s.Labels["name"]).QueueSeconds += s.Value
		case "workqueue_queue_duration_seconds_count":
			get(s.Labels["name"]).QueueAdds += s.Value
		}
	}
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
