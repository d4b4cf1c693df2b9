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
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func series(value float64, labels ...string) Series {
	l := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		l[labels[i]] = labels[i+1]
	}
	return Series{Labels: l, Points: []Point{{time.Unix(1700000000, 0), value}}}
}

func organizeStep(exclude []string, rename map[string]string) Transformation {
	t := Transformation{ID: "organize"}
	t.Options.ExcludeByName = map[string]bool{}
	for _, e := range exclude {
		t.Options.ExcludeByName[e] = true
	}
	t.Options.RenameByName = rename
	return t
}

func TestBuildTable_OneQueryOrganizedAndSorted(t *testing.T) {
	results := []TargetResult{{Target: Target{RefID: "A"}, Series: []Series{
		series(60, "cluster_name", "a", "name", "m-young", "uid", "1"),
		series(7200, "cluster_name", "b", "name", "m-old", "uid", "2"),
	}}}
	got := BuildTable(results, []Transformation{organizeStep([]string{"Time", "uid"}, map[string]string{"Value": "age", "cluster_name": "cluster"})},
		"s", []SortBy{{DisplayName: "age", Desc: true}})
	require.Equal(t, Table{Columns: []string{"cluster", "name", "age"}, Rows: [][]string{{"b", "m-old", "2 hour"}, {"a", "m-young", "1 min"}}}, got)
}

func TestBuildTable_MergeJoinsRowsOfEqualLabelsAcrossQueries(t *testing.T) {
	results := []TargetResult{
		{Target: Target{RefID: "A"}, Series: []Series{series(1, "name", "m-1"), series(1, "name", "md-0")}},
		{Target: Target{RefID: "B"}, Series: []Series{series(1, "name", "md-0")}},
	}
	got := BuildTable(results, []Transformation{{ID: "merge"}, organizeStep([]string{"Time"}, map[string]string{"Value #A": "marked"})}, "", nil)
	require.Equal(t, Table{Columns: []string{"name", "marked", "Value #B"}, Rows: [][]string{{"m-1", "1", ""}, {"md-0", "1", "1"}}}, got)
}

func TestItems_NameEachSeriesByItsTargetsLegend(t *testing.T) {
	data := panelData{results: []TargetResult{
		{Target: Target{LegendFormat: "< 1 hour"}, Series: []Series{series(20)}},
		{Target: Target{LegendFormat: "{{phase}}"}, Series: []Series{series(4, "phase", "Deleting"), series(15, "phase", "Running")}},
	}}
	require.Equal(t, []item{{"< 1 hour", 20}, {"Deleting", 4}, {"Running", 15}}, items(data))
}

func TestDrawPanel_NoDataIsReportedAndDrawnAsGrafanaDoes(t *testing.T) {
	s := &svg{}
	drawn := drawPanel(s, Panel{Type: "stat", Title: "Empty"}, Rect{W: 200, H: 100}, panelData{results: []TargetResult{{}}})
	require.False(t, drawn)
	require.Contains(t, s.b.String(), "No data")
}

func TestFit_CutsLongTextWithAnEllipsis(t *testing.T) {
	require.Equal(t, "short", fit("short", 10, 100))
	cut := fit(strings.Repeat("x", 40), 10, 60)
	require.True(t, strings.HasSuffix(cut, "…"))
	require.LessOrEqual(t, textWidth(cut, 10), 60.0)
}
