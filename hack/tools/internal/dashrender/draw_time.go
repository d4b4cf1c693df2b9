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
	"math"
	"sort"
	"time"
)

// drawTimeSeries draws each series as a line over the panel's range, with a y axis from 0 and a
// legend of the series' names below.
func drawTimeSeries(s *svg, p Panel, body Rect, data panelData) {
	type line struct {
		name   string
		series Series
	}
	var lines []line
	top := 0.0
	for _, r := range data.results {
		for _, sr := range r.Series {
			lines = append(lines, line{SeriesName(r.Target.LegendFormat, r.Target.Expr, sr.Labels), sr})
			for _, pt := range sr.Points {
				top = math.Max(top, pt.V)
			}
		}
	}
	legendRows := legendLayout(len(lines), body.W, func(i int) string { return lines[i].name })
	plot := Rect{X: body.X + 34, Y: body.Y + 4, W: body.W - 38, H: body.H - 26 - 18*float64(len(legendRows))}
	ticks := niceTicks(top)
	yOf := func(v float64) float64 { return plot.Y + plot.H - plot.H*v/ticks[len(ticks)-1] }
	for _, v := range ticks {
		s.line(plot.X, yOf(v), plot.X+plot.W, yOf(v), gridLineColor, 1)
		s.text(plot.X-6, yOf(v)+4, FormatValue(v, p.FieldConfig.Defaults.Unit), 11, secondaryColor, "end", false, 0)
	}
	xOf := timeAxis(s, plot, data.start, data.end)
	for i, l := range lines {
		var pts []float64
		for j, pt := range l.series.Points {
			// A gap in the samples (the series was absent) breaks the line, as Grafana does.
			if j > 0 && pt.T.Sub(l.series.Points[j-1].T) > data.step*3/2 {
				s.polyline(pts, PaletteColor(i), 2)
				pts = nil
			}
			pts = append(pts, xOf(pt.T), yOf(pt.V))
		}
		if len(pts) == 2 {
			pts = append(pts, pts[0]+1, pts[1])
		}
		s.polyline(pts, PaletteColor(i), 2)
	}
	drawLegend(s, legendRows, body.X+4, plot.Y+plot.H+26, func(i int) (string, string) { return lines[i].name, PaletteColor(i) })
}

// legendLayout packs legend entries into rows that fit width; each row lists entry indexes.
func legendLayout(n int, width float64, name func(int) string) [][]int {
	var rows [][]int
	used := width
	for i := 0; i < n; i++ {
		w := textWidth(name(i), 12) + 30
		if used+w > width {
			rows = append(rows, nil)
			used = 0
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], i)
		used += w
	}
	return rows
}

func drawLegend(s *svg, rows [][]int, x, y float64, entry func(int) (string, string)) {
	for r, row := range rows {
		cx := x
		for _, i := range row {
			name, color := entry(i)
			s.rect(Rect{X: cx, Y: y + 18*float64(r) - 4, W: 14, H: 3}, color, "none", 1)
			s.text(cx+20, y+18*float64(r), name, 12, textColor, "start", false, 0)
			cx += textWidth(name, 12) + 30
		}
	}
}

// niceTicks returns the y axis' tick values from 0: four or five steps of 1, 2 or 5 times a
// power of ten reaching at least top (top 0 draws 0 to 1), never steps below 1 once top reaches
// 1: the panels count objects, and a count has no half.
func niceTicks(top float64) []float64 {
	if top <= 0 {
		top = 1
	}
	raw := top / 4
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if step < 1 && top >= 1 {
		step = 1
	}
	var ticks []float64
	for v := 0.0; ; v += step {
		ticks = append(ticks, v)
		if v >= top {
			return ticks
		}
	}
}

// timeAxis draws the time ticks under plot and returns the time-to-x mapping.
func timeAxis(s *svg, plot Rect, start, end time.Time) func(time.Time) float64 {
	span := end.Sub(start)
	xOf := func(t time.Time) float64 { return plot.X + plot.W*float64(t.Sub(start))/float64(span) }
	every := TickInterval(span, plot.W)
	format := "15:04"
	if every < time.Minute {
		format = "15:04:05"
	}
	for t := start.Truncate(every).Add(every); !t.After(end); t = t.Add(every) {
		s.line(xOf(t), plot.Y, xOf(t), plot.Y+plot.H, gridLineColor, 1)
		label := t.UTC().Format(format)
		if xOf(t)+textWidth(label, 11)/2 <= plot.X+plot.W { // a label the panel's edge would cut is left out
			s.text(xOf(t), plot.Y+plot.H+15, label, 11, secondaryColor, "middle", false, 0)
		}
	}
	return xOf
}

// TickInterval picks the time axis' tick spacing: the smallest of Grafana's round intervals
// that leaves about 100 px between labels.
func TickInterval(span time.Duration, width float64) time.Duration {
	most := math.Max(1, math.Floor(width/100))
	for _, d := range []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
		time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
		time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour} {
		if float64(span/d) <= most {
			return d
		}
	}
	return 24 * time.Hour
}

// drawStateTimeline draws one band per series, each stretch coloured and named by the panel's
// value mappings (the thresholds' colour and the value when none maps it).
func drawStateTimeline(s *svg, p Panel, body Rect, data panelData) {
	type band struct {
		name     string
		segments []Segment
	}
	var bands []band
	for _, r := range data.results {
		for _, sr := range r.Series {
			bands = append(bands, band{SeriesName(r.Target.LegendFormat, r.Target.Expr, sr.Labels), Segments(sr, data.step)})
		}
	}
	nameW := body.W * 0.32
	plot := Rect{X: body.X + nameW, Y: body.Y, W: body.W - nameW, H: body.H - 40}
	xOf := timeAxis(s, plot, data.start, data.end)
	rowH := plot.H / float64(len(bands))
	for i, b := range bands {
		y := plot.Y + rowH*float64(i)
		s.text(body.X, y+rowH/2+4, b.name, 12, textColor, "start", false, nameW-8)
		for _, seg := range b.segments {
			text, color := FormatValue(seg.Value, p.FieldConfig.Defaults.Unit), ThresholdColor(seg.Value, p.FieldConfig.Defaults.Thresholds)
			if m, ok := MapValue(seg.Value, p.FieldConfig.Defaults.Mappings); ok {
				text, color = m.Text, Color(m.Color)
			}
			x1, x2 := xOf(seg.From), math.Min(xOf(seg.To), plot.X+plot.W)
			s.rect(Rect{X: x1, Y: y + rowH*0.1, W: x2 - x1, H: rowH * 0.8}, color, "none", 2)
			if textWidth(text, 12) < x2-x1-8 {
				s.text((x1+x2)/2, y+rowH/2+4, text, 12, "#111217", "middle", true, 0)
			}
		}
	}
	drawMappingLegend(s, p.FieldConfig.Defaults.Mappings, body.X+4, body.Y+body.H-4)
}

// drawMappingLegend lists the value mappings' texts and colours, in their index order.
func drawMappingLegend(s *svg, mappings []Mapping, x, y float64) {
	var entries []MappedResult
	for _, m := range mappings {
		for _, r := range m.Options {
			entries = append(entries, r)
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Index < entries[j].Index })
	rows := [][]int{{}}
	for i := range entries {
		rows[0] = append(rows[0], i)
	}
	drawLegend(s, rows, x, y, func(i int) (string, string) { return entries[i].Text, Color(entries[i].Color) })
}
