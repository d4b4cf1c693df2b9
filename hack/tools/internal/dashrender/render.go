/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package dashrender

import (
	"context"
	"fmt"
	"time"
)

// Renderer draws a dashboard from one Prometheus over one time range.
type Renderer struct {
	Prom       *Prometheus
	Start, End time.Time // the range of time-series panels; instant queries are evaluated at End
	Width      float64   // canvas width in pixels
	Subtitle   string    // drawn under the dashboard's title, e.g. what the data is
}

// panelData is a panel's answers and the time range they cover.
type panelData struct {
	results    []TargetResult
	start, end time.Time
	step       time.Duration
}

// Render draws every panel. It returns the SVG and the titles of the panels whose queries all
// came back empty (drawn "No data", as Grafana does).
func (r *Renderer) Render(ctx context.Context, d *Dashboard) ([]byte, []string, error) {
	layout := Layout{Width: r.Width}
	vars := d.AllValues()
	s := &svg{}
	s.text(pagePadding, 30, d.Title, 20, textColor, "start", true, 0)
	s.text(pagePadding, 47, r.Subtitle, 12, secondaryColor, "start", false, r.Width-2*pagePadding)
	s.text(r.Width-pagePadding, 30, fmt.Sprintf("%s – %s UTC", r.Start.UTC().Format("2006-01-02 15:04:05"),
		r.End.UTC().Format("15:04:05")), 12, secondaryColor, "end", false, 0)
	var empty []string
	for _, p := range flatten(d.Panels) {
		box := layout.Place(p.GridPos)
		if p.Type == "row" {
			s.text(box.X, box.Y+box.H-6, p.Title, 15, textColor, "start", true, 0)
			continue
		}
		data, err := r.fetch(ctx, p, vars)
		if err != nil {
			return nil, nil, fmt.Errorf("panel %q: %w", p.Title, err)
		}
		if !drawPanel(s, p, box, data) {
			empty = append(empty, p.Title)
		}
	}
	return document(r.Width, layout.Height(flatten(d.Panels)), s.b.String()), empty, nil
}

// flatten lists the panels in drawing order, a collapsed row's panels after it.
func flatten(panels []Panel) []Panel {
	var out []Panel
	for _, p := range panels {
		out = append(out, p)
		if p.Type == "row" && p.Collapsed {
			out = append(out, flatten(p.Panels)...)
		}
	}
	return out
}

// instantTypes are the panel types that show one value per series, whose targets Grafana's
// dashboard marks instant; time series and state timelines ask for the range.
var instantTypes = map[string]bool{"piechart": true, "bargauge": true, "stat": true, "table": true}

func (r *Renderer) fetch(ctx context.Context, p Panel, vars map[string]string) (panelData, error) {
	data := panelData{start: r.Start, end: r.End, step: rangeStep(r.End.Sub(r.Start))}
	for _, t := range p.Targets {
		expr, err := Substitute(t.Expr, vars)
		if err != nil {
			return data, err
		}
		var series []Series
		if t.Instant || instantTypes[p.Type] {
			series, err = r.Prom.Instant(ctx, expr, r.End)
		} else {
			series, err = r.Prom.Range(ctx, expr, r.Start, r.End, data.step)
		}
		if err != nil {
			return data, err
		}
		data.results = append(data.results, TargetResult{Target: Target{RefID: t.RefID, Expr: expr, LegendFormat: t.LegendFormat,
			Format: t.Format, Instant: t.Instant}, Series: series})
	}
	return data, nil
}

// rangeStep is the resolution of range queries: about 240 points across the panel, at least a
// second, as Grafana picks an interval from the range and the panel's width.
func rangeStep(span time.Duration) time.Duration {
	return max(time.Second, (span / 240).Round(time.Second))
}

// drawPanel draws the frame, the title and the body; false when there was nothing to draw.
func drawPanel(s *svg, p Panel, box Rect, data panelData) bool {
	s.rect(box, panelColor, borderColor, 3)
	s.text(box.X+10, box.Y+21, p.Title, 13, textColor, "start", true, box.W-20)
	body := Rect{X: box.X + 10, Y: box.Y + 32, W: box.W - 20, H: box.H - 40}
	has := false
	for _, r := range data.results {
		has = has || len(r.Series) > 0
	}
	if !has {
		s.text(body.X+body.W/2, body.Y+body.H/2, "No data", 16, secondaryColor, "middle", false, 0)
		return false
	}
	s.clipped(body, func() {
		switch p.Type {
		case "piechart":
			drawPie(s, p, body, data)
		case "timeseries":
			drawTimeSeries(s, p, body, data)
		case "bargauge":
			drawBarGauge(s, p, body, data)
		case "table":
			drawTable(s, p, body, data)
		case "stat":
			drawStat(s, p, body, data)
		case "state-timeline":
			drawStateTimeline(s, p, body, data)
		default:
			s.text(body.X+body.W/2, body.Y+body.H/2, "panel type "+p.Type+" is not drawn", 14, secondaryColor, "middle", false, 0)
		}
	})
	return true
}

// item is one named value of a panel that shows values (pie slice, bar, stat).
type item struct {
	name  string
	value float64
}

// items lists the newest value of every series of every target, named by the legend.
func items(data panelData) []item {
	var out []item
	for _, r := range data.results {
		for _, s := range r.Series {
			out = append(out, item{name: SeriesName(r.Target.LegendFormat, r.Target.Expr, s.Labels), value: s.Last()})
		}
	}
	return out
}
