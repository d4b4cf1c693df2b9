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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestSubstitute_SetsEverySyntaxOfAVariable(t *testing.T) {
	vars := map[string]string{"cluster": ".*"}
	for _, expr := range []string{`a{name=~"$cluster"}`, `a{name=~"${cluster}"}`, `a{name=~"${cluster:regex}"}`, `a{name=~"[[cluster]]"}`} {
		got, err := Substitute(expr, vars)
		require.NoError(t, err, expr)
		require.Equal(t, `a{name=~".*"}`, got, expr)
	}
}

func TestSubstitute_RefusesAVariableTheDashboardLacks(t *testing.T) {
	_, err := Substitute(`a{name=~"$clustr"}`, map[string]string{"cluster": ".*"})
	require.ErrorContains(t, err, "$clustr")
}

func TestAllValues_TakesAllValueAndSkipsTheDataSource(t *testing.T) {
	d := &Dashboard{}
	d.Templating.List = []Variable{{Name: "datasource", Type: "datasource"}, {Name: "cluster", Type: "query", AllValue: "prod-.*"},
		{Name: "ns", Type: "query", IncludeAll: true}}
	require.Equal(t, map[string]string{"cluster": "prod-.*", "ns": ".*"}, d.AllValues())
}

func TestLayout_PlacesPanelsOnGrafanasGrid(t *testing.T) {
	l := Layout{Width: 16 + 24*50 + 23*8 + 16} // 50 px columns
	require.Equal(t, Rect{X: 16, Y: headerSize, W: 24*50 + 23*8, H: 30}, l.Place(GridPos{X: 0, Y: 0, W: 24, H: 1}))
	// Column 8 starts after eight columns and their eight gaps; a panel 8 high spans 8 rows and 7 gaps.
	require.Equal(t, Rect{X: 16 + 8*58, Y: headerSize + 38, W: 8*50 + 7*8, H: 8*30 + 7*8}, l.Place(GridPos{X: 8, Y: 1, W: 8, H: 8}))
	require.Equal(t, headerSize+9*38.0+pagePadding, l.Height([]Panel{{GridPos: GridPos{Y: 1, H: 8}}, {GridPos: GridPos{Y: 0, H: 1}}}))
}

func TestParseResult_ReadsVectorsMatricesAndScalarsSortedByLabels(t *testing.T) {
	vector := `{"status":"success","data":{"resultType":"vector","result":[
		{"metric":{"phase":"Running"},"value":[1700000000.5,"15"]},{"metric":{"phase":"Deleting"},"value":[1700000000.5,"4"]}]}}`
	got, err := ParseResult([]byte(vector))
	require.NoError(t, err)
	at := time.UnixMilli(1700000000500)
	require.Empty(t, cmp.Diff([]Series{
		{Labels: map[string]string{"phase": "Deleting"}, Points: []Point{{at, 4}}},
		{Labels: map[string]string{"phase": "Running"}, Points: []Point{{at, 15}}},
	}, got))

	matrix := `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1700000000,"1"],[1700000001,"2"]]}]}}`
	got, err = ParseResult([]byte(matrix))
	require.NoError(t, err)
	require.Equal(t, []Point{{time.Unix(1700000000, 0), 1}, {time.Unix(1700000001, 0), 2}}, got[0].Points)

	got, err = ParseResult([]byte(`{"status":"success","data":{"resultType":"scalar","result":[1700000000,"3"]}}`))
	require.NoError(t, err)
	require.Equal(t, 3.0, got[0].Last())

	_, err = ParseResult([]byte(`{"status":"error","error":"parse error at char 3"}`))
	require.ErrorContains(t, err, "parse error at char 3")
}

func TestSeriesName_FillsTheLegendFormatOrNamesTheSeries(t *testing.T) {
	labels := map[string]string{"__name__": "capi_machine_info", "namespace": "team-a", "name": "m-1"}
	require.Equal(t, "team-a/m-1", SeriesName("{{namespace}}/{{ name }}", "e", labels))
	require.Equal(t, `capi_machine_info{name="m-1", namespace="team-a"}`, SeriesName("", "e", labels))
	require.Equal(t, "count(x)", SeriesName("", "count(x)", map[string]string{}))
}

func TestFormatValue_ByUnit(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{3, "short", "3"}, {2.5, "", "2.5"}, {1500, "short", "1.5 K"}, {2e6, "short", "2 Mil"},
		{42, "s", "42 s"}, {90, "s", "1.5 min"}, {7200, "s", "2 hour"}, {3 * 86400, "s", "3 day"}, {14 * 86400, "s", "2 week"},
	} {
		require.Equal(t, c.want, FormatValue(c.v, c.unit), "%v %s", c.v, c.unit)
	}
}

func TestThresholdColor_TakesTheHighestStepReached(t *testing.T) {
	one := 1.0
	th := Thresholds{}
	th.Steps = append(th.Steps, struct {
		Color string   `json:"color"`
		Value *float64 `json:"value"`
	}{Color: "green"}, struct {
		Color string   `json:"color"`
		Value *float64 `json:"value"`
	}{Color: "red", Value: &one})
	require.Equal(t, Color("green"), ThresholdColor(0, th))
	require.Equal(t, Color("red"), ThresholdColor(1, th))
	require.Equal(t, Color("green"), ThresholdColor(79, Thresholds{}), "Grafana's default steps")
	require.Equal(t, Color("red"), ThresholdColor(80, Thresholds{}))
}

func TestMapValue_MapsExactValues(t *testing.T) {
	m := []Mapping{{Type: "value", Options: map[string]MappedResult{"0": {Text: "False", Color: "red"}, "2": {Text: "True", Color: "green"}}}}
	got, ok := MapValue(2, m)
	require.True(t, ok)
	require.Equal(t, "True", got.Text)
	_, ok = MapValue(1, m)
	require.False(t, ok)
}

func TestSegments_JoinsEqualValuesAndBreaksAtGaps(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	s := Series{Points: []Point{{at(0), 1}, {at(1), 1}, {at(2), 2}, {at(3), 2}, {at(10), 2}}}
	require.Equal(t, []Segment{{at(0), at(2), 1}, {at(2), at(4), 2}, {at(10), at(11), 2}}, Segments(s, time.Second))
}

func TestTickInterval_LeavesRoomForTheLabels(t *testing.T) {
	require.Equal(t, 15*time.Second, TickInterval(70*time.Second, 500))
	require.Equal(t, time.Hour, TickInterval(6*time.Hour, 700))
}

func TestNiceTicks_ReachTheTopInRoundSteps(t *testing.T) {
	require.Equal(t, []float64{0, 1, 2, 3}, niceTicks(3))
	require.Equal(t, []float64{0, 5, 10, 15}, niceTicks(15))
	require.Equal(t, []float64{0, 1}, niceTicks(0), "counts: no fractional ticks, and an axis for all-zero series")
	require.Equal(t, []float64{0, 0.1, 0.2, 0.30000000000000004}, niceTicks(0.25))
}
