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

// Grafana's grid: 24 columns, rows of 30 px with 8 px between panels.
const (
	gridColumns = 24
	cellHeight  = 30
	gridMargin  = 8
	pagePadding = 16
	headerSize  = 56 // the dashboard title bar above the grid
)

// Rect is a pixel rectangle.
type Rect struct{ X, Y, W, H float64 }

// Layout places grid positions on a canvas of a given pixel width, as Grafana places them on a
// screen that wide.
type Layout struct{ Width float64 }

func (l Layout) columnWidth() float64 {
	return (l.Width - 2*pagePadding - (gridColumns-1)*gridMargin) / gridColumns
}

// Place returns the pixel rectangle of a grid position.
func (l Layout) Place(g GridPos) Rect {
	col := l.columnWidth()
	return Rect{
		X: pagePadding + float64(g.X)*(col+gridMargin),
		Y: headerSize + float64(g.Y)*(cellHeight+gridMargin),
		W: float64(g.W)*col + float64(g.W-1)*gridMargin,
		H: float64(g.H)*cellHeight + float64(g.H-1)*gridMargin,
	}
}

// Height is the canvas height that holds every panel.
func (l Layout) Height(panels []Panel) float64 {
	bottom := 0
	for _, p := range panels {
		bottom = max(bottom, p.GridPos.Y+p.GridPos.H)
	}
	return headerSize + float64(bottom)*(cellHeight+gridMargin) + pagePadding
}
