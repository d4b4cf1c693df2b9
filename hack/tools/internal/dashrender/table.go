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

import "sort"

// Table is a table panel's header and cells, as drawn.
type Table struct {
	Columns []string
	Rows    [][]string
}

// TargetResult is a target's answer.
type TargetResult struct {
	Target Target
	Series []Series
}

// SortBy is a table panel's sort option.
type SortBy struct {
	DisplayName string `json:"displayName"`
	Desc        bool   `json:"desc"`
}

// BuildTable turns instant answers into a table as Grafana's Prometheus data source and table
// panel do: a Time column, one column per label (sorted), and the value, named "Value" for a
// panel of one query and "Value #<refId>" otherwise; a "merge" transformation joins the rows
// of equal labels, an "organize" one drops and renames columns; sortBy orders the rows.
func BuildTable(results []TargetResult, transformations []Transformation, unit string, sortBy []SortBy) Table {
	type row struct {
		cells  map[string]string
		values map[string]float64
	}
	labelSet := map[string]bool{}
	var valueCols []string
	var rows []*row
	byLabels := map[string]*row{}
	merge := false
	for _, t := range transformations {
		merge = merge || t.ID == "merge"
	}
	for _, r := range results {
		col := "Value"
		if len(results) > 1 {
			col = "Value #" + r.Target.RefID
		}
		valueCols = append(valueCols, col)
		for _, s := range r.Series {
			key := labelKey(s.Labels)
			rw := byLabels[key]
			if rw == nil || !merge {
				rw = &row{cells: map[string]string{"Time": s.Points[0].T.UTC().Format("2006-01-02 15:04:05")}, values: map[string]float64{}}
				rows = append(rows, rw)
				byLabels[key] = rw
			}
			for k, v := range s.Labels {
				rw.cells[k] = v
				labelSet[k] = true
			}
			rw.cells[col] = FormatValue(s.Last(), unit)
			rw.values[col] = s.Last()
		}
	}
	labels := make([]string, 0, len(labelSet))
	for l := range labelSet {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	columns := append(append([]string{"Time"}, labels...), valueCols...)

	kept, names := organize(columns, transformations)
	for _, s := range sortBy {
		for _, c := range kept {
			if names[c] != s.DisplayName {
				continue
			}
			less := func(a, b *row) bool {
				if _, ok := a.values[c]; ok {
					return a.values[c] < b.values[c]
				}
				return a.cells[c] < b.cells[c]
			}
			sort.SliceStable(rows, func(i, j int) bool {
				if s.Desc {
					return less(rows[j], rows[i])
				}
				return less(rows[i], rows[j])
			})
		}
	}
	t := Table{}
	for _, c := range kept {
		t.Columns = append(t.Columns, names[c])
	}
	for _, r := range rows {
		cells := make([]string, len(kept))
		for i, c := range kept {
			cells[i] = r.cells[c]
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// organize applies the "organize" transformations: the columns kept, and each one's display name.
func organize(columns []string, transformations []Transformation) (kept []string, names map[string]string) {
	names = map[string]string{}
	for _, c := range columns {
		names[c] = c
		excluded := false
		for _, t := range transformations {
			if t.ID == "organize" {
				excluded = excluded || t.Options.ExcludeByName[c]
				if n, ok := t.Options.RenameByName[c]; ok {
					names[c] = n
				}
			}
		}
		if !excluded {
			kept = append(kept, c)
		}
	}
	return kept, names
}
