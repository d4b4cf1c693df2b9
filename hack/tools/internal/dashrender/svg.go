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
	"html"
	"strings"
)

// The dark theme's surfaces and text.
const (
	canvasColor    = "#111217"
	panelColor     = "#181B1F"
	borderColor    = "#2A2D33"
	textColor      = "#CCCCDC"
	secondaryColor = "#8E8E9A"
	gridLineColor  = "#2C3036"
	fontFamily     = "DejaVu Sans, Inter, Helvetica, Arial, sans-serif"
)

// svg accumulates SVG elements.
type svg struct {
	b      strings.Builder
	clipID int
}

func (s *svg) rect(r Rect, fill, stroke string, radius float64) {
	fmt.Fprintf(&s.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="%.1f" fill="%s" stroke="%s"/>`+"\n",
		r.X, r.Y, max(r.W, 0), max(r.H, 0), radius, fill, stroke)
}

// text draws s at (x, y) (the baseline), cut with an ellipsis to fit width when width > 0.
func (s *svg) text(x, y float64, str string, size float64, fill, anchor string, bold bool, width float64) {
	str = fit(str, size, width)
	weight := "normal"
	if bold {
		weight = "bold"
	}
	fmt.Fprintf(&s.b, `<text x="%.1f" y="%.1f" font-size="%.1f" fill="%s" text-anchor="%s" font-weight="%s">%s</text>`+"\n",
		x, y, size, fill, anchor, weight, html.EscapeString(str))
}

func (s *svg) line(x1, y1, x2, y2 float64, stroke string, width float64) {
	fmt.Fprintf(&s.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f"/>`+"\n", x1, y1, x2, y2, stroke, width)
}

func (s *svg) polyline(points []float64, stroke string, width float64) {
	var b strings.Builder
	for i := 0; i+1 < len(points); i += 2 {
		fmt.Fprintf(&b, "%.1f,%.1f ", points[i], points[i+1])
	}
	fmt.Fprintf(&s.b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%.1f" stroke-linejoin="round"/>`+"\n",
		strings.TrimSpace(b.String()), stroke, width)
}

func (s *svg) path(d, fill string) {
	fmt.Fprintf(&s.b, `<path d="%s" fill="%s"/>`+"\n", d, fill)
}

// clipped runs draw with everything it draws clipped to r, so no panel paints outside itself.
func (s *svg) clipped(r Rect, draw func()) {
	s.clipID++
	fmt.Fprintf(&s.b, `<clipPath id="c%d"><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f"/></clipPath><g clip-path="url(#c%d)">`+"\n",
		s.clipID, r.X, r.Y, r.W, r.H, s.clipID)
	draw()
	s.b.WriteString("</g>\n")
}

// textWidth estimates a string's width: DejaVu Sans averages about 0.6 em a character.
func textWidth(s string, size float64) float64 { return float64(len([]rune(s))) * size * 0.6 }

// fit cuts s with an ellipsis so that it is at most width wide (no limit when width <= 0).
func fit(s string, size, width float64) string {
	if width <= 0 || textWidth(s, size) <= width {
		return s
	}
	r := []rune(s)
	n := int(width/(size*0.6)) - 1
	if n < 1 {
		return "…"
	}
	return string(r[:min(n, len(r))]) + "…"
}

// document wraps the body in an SVG element of the given size on the canvas colour.
func document(width, height float64, body string) []byte {
	return []byte(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="%s">
<rect width="100%%" height="100%%" fill="%s"/>
%s</svg>
`, width, height, width, height, fontFamily, canvasColor, body))
}
