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
)

// drawPie draws a donut (or pie) of the panel's values with a legend table on the right.
func drawPie(s *svg, p Panel, body Rect, data panelData) {
	its := items(data)
	total := 0.0
	for _, it := range its {
		total += it.value
	}
	legendW := body.W * 0.45
	r := math.Min(body.H, body.W-legendW) / 2 * 0.92
	cx, cy := body.X+(body.W-legendW)/2, body.Y+body.H/2
	inner := 0.0
	if p.Options.PieType == "donut" {
		inner = r * 0.6
	}
	angle := -math.Pi / 2
	for i, it := range its {
		if total <= 0 || it.value <= 0 {
			continue
		}
		sweep := 2 * math.Pi * it.value / total
		// An arc cannot start and end at one point: a whole circle is two halves.
		for _, part := range splitSweep(sweep) {
			s.path(slicePath(cx, cy, r, inner, angle, part), PaletteColor(i))
			angle += part
		}
	}
	// The legend: a swatch, the name and the value, one row each (Grafana's "table" legend).
	rowH := math.Min(22, body.H/float64(len(its)+1))
	x := body.X + body.W - legendW + 8
	s.text(x+16, body.Y+rowH*0.7, "Name", 11, secondaryColor, "start", true, 0)
	s.text(body.X+body.W-4, body.Y+rowH*0.7, "Value", 11, secondaryColor, "end", true, 0)
	for i, it := range its {
		y := body.Y + rowH*float64(i+1)
		s.rect(Rect{X: x, Y: y + rowH/2 - 7, W: 10, H: 10}, PaletteColor(i), "none", 2)
		s.text(x+16, y+rowH/2+2, it.name, 12, textColor, "start", false, legendW-70)
		s.text(body.X+body.W-4, y+rowH/2+2, FormatValue(it.value, p.FieldConfig.Defaults.Unit), 12, textColor, "end", false, 0)
	}
}

func splitSweep(sweep float64) []float64 {
	if sweep > math.Pi {
		return []float64{math.Pi, sweep - math.Pi}
	}
	return []float64{sweep}
}

// slicePath is the outline of a ring sector (a pie sector when inner is 0).
func slicePath(cx, cy, r, inner, from, sweep float64) string {
	to := from + sweep
	pt := func(radius, a float64) (float64, float64) { return cx + radius*math.Cos(a), cy + radius*math.Sin(a) }
	x1, y1 := pt(r, from)
	x2, y2 := pt(r, to)
	x3, y3 := pt(inner, to)
	x4, y4 := pt(inner, from)
	return fmt.Sprintf("M%.2f,%.2f A%.2f,%.2f 0 0 1 %.2f,%.2f L%.2f,%.2f A%.2f,%.2f 0 0 0 %.2f,%.2f Z",
		x1, y1, r, r, x2, y2, x3, y3, inner, inner, x4, y4)
}

// drawBarGauge draws horizontal bars, one per value, scaled to the largest.
func drawBarGauge(s *svg, p Panel, body Rect, data panelData) {
	its := items(data)
	top := 0.0
	for _, it := range its {
		top = math.Max(top, it.value)
	}
	rowH := math.Min(36, body.H/float64(len(its)))
	nameW, valueW := body.W*0.28, 56.0
	for i, it := range its {
		y := body.Y + rowH*float64(i)
		color := ThresholdColor(it.value, p.FieldConfig.Defaults.Thresholds)
		s.text(body.X, y+rowH/2+4, it.name, 12, textColor, "start", false, nameW-8)
		track := Rect{X: body.X + nameW, Y: y + rowH*0.2, W: body.W - nameW - valueW, H: rowH * 0.6}
		s.rect(track, "#22252B", "none", 2)
		if top > 0 {
			s.rect(Rect{X: track.X, Y: track.Y, W: track.W * it.value / top, H: track.H}, color, "none", 2)
		}
		s.text(body.X+body.W, y+rowH/2+6, FormatValue(it.value, p.FieldConfig.Defaults.Unit), 18, color, "end", true, 0)
	}
}

// drawStat draws one tile per value: its name and the value, the value or the tile coloured by
// the thresholds (colorMode "value" or "background").
func drawStat(s *svg, p Panel, body Rect, data panelData) {
	its := items(data)
	cols := len(its)
	tileW := body.W / float64(cols)
	for i, it := range its {
		tile := Rect{X: body.X + tileW*float64(i) + 2, Y: body.Y, W: tileW - 4, H: body.H}
		color := ThresholdColor(it.value, p.FieldConfig.Defaults.Thresholds)
		valueColor := color
		if p.Options.ColorMode == "background" {
			s.rect(tile, color, "none", 3)
			valueColor = "#FFFFFF"
		}
		nameColor := textColor
		if p.Options.ColorMode == "background" {
			nameColor = "#FFFFFF"
		}
		size := math.Min(tile.H*0.45, tile.W/3)
		if p.Options.TextMode != "value" {
			s.text(tile.X+tile.W/2, tile.Y+tile.H*0.3, it.name, 13, nameColor, "middle", false, tile.W-8)
		}
		s.text(tile.X+tile.W/2, tile.Y+tile.H*0.3+size*1.1, FormatValue(it.value, p.FieldConfig.Defaults.Unit), size, valueColor, "middle", true, 0)
	}
}

// drawTable draws a header and the rows, columns as wide as their widest cell allows.
func drawTable(s *svg, p Panel, body Rect, data panelData) {
	t := BuildTable(data.results, p.Transformations, p.FieldConfig.Defaults.Unit, p.Options.SortBy)
	widths := make([]float64, len(t.Columns))
	sum := 0.0
	for i, c := range t.Columns {
		widths[i] = textWidth(c, 12) + 16
		for _, r := range t.Rows {
			widths[i] = math.Max(widths[i], textWidth(r[i], 12)+16)
		}
		sum += widths[i]
	}
	for i := range widths {
		widths[i] *= body.W / sum
	}
	rowH := 24.0
	s.rect(Rect{X: body.X, Y: body.Y, W: body.W, H: rowH}, "#1F2228", "none", 0)
	for row := -1; row < len(t.Rows); row++ {
		y := body.Y + rowH*float64(row+1)
		x := body.X
		for i := range t.Columns {
			text, color := t.Columns[i], secondaryColor
			if row >= 0 {
				text, color = t.Rows[row][i], textColor
			}
			s.text(x+6, y+16, text, 12, color, "start", row < 0, widths[i]-8)
			x += widths[i]
		}
		s.line(body.X, y+rowH, body.X+body.W, y+rowH, gridLineColor, 1)
	}
}
