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
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Grafana's dark theme colours: its named colours, and its classic palette, which series take in turn.
var (
	namedColors = map[string]string{
		"green": "#73BF69", "red": "#F2495C", "yellow": "#FADE2A", "orange": "#FF9830",
		"blue": "#5794F2", "purple": "#B877D9", "text": "#CCCCDC", "transparent": "none",
	}
	palette = []string{"#7EB26D", "#EAB839", "#6ED0E0", "#EF843C", "#E24D42", "#1F78C1", "#BA43A6", "#705DA0", "#508642", "#CCA300"}
)

// Color resolves a Grafana colour name (or passes a #rrggbb through).
func Color(name string) string {
	if c, ok := namedColors[name]; ok {
		return c
	}
	if strings.HasPrefix(name, "#") {
		return name
	}
	return namedColors["text"]
}

// PaletteColor is the colour of the i-th series.
func PaletteColor(i int) string { return palette[i%len(palette)] }

// labelKey orders label sets: by name, then the pairs in label-name order.
func labelKey(labels map[string]string) string {
	names := make([]string, 0, len(labels))
	for n := range labels {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(labels["__name__"])
	for _, n := range names {
		if n != "__name__" {
			fmt.Fprintf(&b, "\x00%s=%s", n, labels[n])
		}
	}
	return b.String()
}

var legendRef = regexp.MustCompile(`\{\{\s*(\w+)\s*\}\}`)

// SeriesName is a series' display name as Grafana forms it: the legend format with {{label}}
// filled in; without one, the metric name and labels; a series without labels takes the expression.
func SeriesName(legendFormat, expr string, labels map[string]string) string {
	if legendFormat != "" && legendFormat != "__auto" {
		return legendRef.ReplaceAllStringFunc(legendFormat, func(ref string) string {
			return labels[legendRef.FindStringSubmatch(ref)[1]]
		})
	}
	if len(labels) == 0 {
		return expr
	}
	var pairs []string
	for _, kv := range strings.Split(strings.TrimPrefix(labelKey(labels), labels["__name__"]), "\x00") {
		if name, value, ok := strings.Cut(kv, "="); ok {
			pairs = append(pairs, fmt.Sprintf("%s=%q", name, value))
		}
	}
	return labels["__name__"] + "{" + strings.Join(pairs, ", ") + "}"
}

// FormatValue formats a value in one of the units the dashboard uses: "s" (a duration, shown in
// the largest unit it reaches), "short" or none (a plain number, k and M for large ones).
func FormatValue(v float64, unit string) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	if unit == "s" {
		for _, u := range []struct {
			size float64
			name string
		}{{365 * 86400, "year"}, {7 * 86400, "week"}, {86400, "day"}, {3600, "hour"}, {60, "min"}} {
			if math.Abs(v) >= u.size {
				return trimNumber(v/u.size, 1) + " " + u.name
			}
		}
		return trimNumber(v, 0) + " s"
	}
	switch a := math.Abs(v); {
	case a >= 1e6:
		return trimNumber(v/1e6, 2) + " Mil"
	case a >= 1e3:
		return trimNumber(v/1e3, 2) + " K"
	}
	return trimNumber(v, 2)
}

// trimNumber prints v with at most decimals digits after the point and no trailing zeros.
func trimNumber(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// ThresholdColor is the colour of the highest threshold step v reaches; without steps, Grafana's
// default (green, red from 80).
func ThresholdColor(v float64, t Thresholds) string {
	if len(t.Steps) == 0 {
		if v >= 80 {
			return Color("red")
		}
		return Color("green")
	}
	color := t.Steps[0].Color
	for _, s := range t.Steps[1:] {
		if s.Value != nil && v >= *s.Value {
			color = s.Color
		}
	}
	return Color(color)
}

// MapValue applies a panel's value mappings; ok is false when none maps v.
func MapValue(v float64, mappings []Mapping) (MappedResult, bool) {
	for _, m := range mappings {
		if m.Type != "value" {
			continue
		}
		for key, res := range m.Options {
			if k, err := strconv.ParseFloat(key, 64); err == nil && k == v {
				return res, true
			}
		}
	}
	return MappedResult{}, false
}

// Segment is a stretch of a state timeline holding one value.
type Segment struct {
	From, To time.Time
	Value    float64
}

// Segments splits a range series into stretches of equal value; a gap of more than one and a
// half steps between samples (the series was absent) ends a stretch.
func Segments(s Series, step time.Duration) []Segment {
	var out []Segment
	for i, p := range s.Points {
		end := p.T.Add(step)
		if i+1 < len(s.Points) && s.Points[i+1].T.Sub(p.T) <= step*3/2 {
			end = s.Points[i+1].T
		}
		if n := len(out); n > 0 && out[n-1].Value == p.V && !out[n-1].To.Before(p.T) {
			out[n-1].To = end
			continue
		}
		out = append(out, Segment{From: p.T, To: end, Value: p.V})
	}
	return out
}
