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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"
)

// Prometheus queries a Prometheus server's HTTP API.
type Prometheus struct {
	URL    string // e.g. http://127.0.0.1:9090
	Client *http.Client
}

// Series is one result series: its labels and its points (one for an instant query).
type Series struct {
	Labels map[string]string
	Points []Point
}

// Point is one sample.
type Point struct {
	T time.Time
	V float64
}

// Last is the series' newest value.
func (s Series) Last() float64 { return s.Points[len(s.Points)-1].V }

// Instant evaluates expr at one moment.
func (p *Prometheus) Instant(ctx context.Context, expr string, at time.Time) ([]Series, error) {
	return p.query(ctx, "/api/v1/query", url.Values{"query": {expr}, "time": {unix(at)}})
}

// Range evaluates expr from start to end every step.
func (p *Prometheus) Range(ctx context.Context, expr string, start, end time.Time, step time.Duration) ([]Series, error) {
	return p.query(ctx, "/api/v1/query_range", url.Values{
		"query": {expr}, "start": {unix(start)}, "end": {unix(end)}, "step": {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	})
}

func unix(t time.Time) string { return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64) }

func (p *Prometheus) query(ctx context.Context, path string, params url.Values) ([]Series, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL+path, nil)
	if err != nil {
		return nil, err
	}
	req.URL.RawQuery = params.Encode()
	c := p.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("querying %q: %w", params.Get("query"), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the answer to %q: %w", params.Get("query"), err)
	}
	series, err := ParseResult(body)
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", params.Get("query"), err)
	}
	return series, nil
}

// apiResponse is the Prometheus HTTP API's envelope.
type apiResponse struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Data   struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

type apiSeries struct {
	Metric map[string]string `json:"metric"`
	Value  []any             `json:"value"`
	Values [][]any           `json:"values"`
}

// ParseResult turns an API answer (vector, matrix or scalar) into series sorted by their labels,
// so that a picture drawn twice from the same data is the same picture.
func ParseResult(body []byte) ([]Series, error) {
	var r apiResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("parsing the answer: %w", err)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("prometheus: %s", r.Error)
	}
	var raw []apiSeries
	switch r.Data.ResultType {
	case "scalar":
		var v []any
		if err := json.Unmarshal(r.Data.Result, &v); err != nil {
			return nil, err
		}
		raw = []apiSeries{{Metric: map[string]string{}, Value: v}}
	case "vector", "matrix":
		if err := json.Unmarshal(r.Data.Result, &raw); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unexpected result type %q", r.Data.ResultType)
	}
	out := make([]Series, 0, len(raw))
	for _, s := range raw {
		pairs := s.Values
		if s.Value != nil {
			pairs = [][]any{s.Value}
		}
		series := Series{Labels: s.Metric}
		for _, pair := range pairs {
			pt, err := parsePoint(pair)
			if err != nil {
				return nil, err
			}
			series.Points = append(series.Points, pt)
		}
		if len(series.Points) > 0 {
			out = append(out, series)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return labelKey(out[i].Labels) < labelKey(out[j].Labels) })
	return out, nil
}

func parsePoint(pair []any) (Point, error) {
	if len(pair) != 2 {
		return Point{}, fmt.Errorf("a sample of %d fields", len(pair))
	}
	ts, ok := pair[0].(float64)
	text, ok2 := pair[1].(string)
	if !ok || !ok2 {
		return Point{}, fmt.Errorf("a sample %v that is not [time, \"value\"]", pair)
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return Point{}, err
	}
	return Point{T: time.UnixMilli(int64(ts * 1000)), V: v}, nil
}
