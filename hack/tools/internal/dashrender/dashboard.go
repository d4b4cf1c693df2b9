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

// Package dashrender draws a Grafana dashboard's panels as an SVG from a Prometheus HTTP API:
// the panels' grid positions, titles and types, their targets' expressions with the dashboard's
// variables set to "all", evaluated by Prometheus (instant and range queries). It is what make
// dashboard-picture draws docs/images/fleet-dashboard.png with, since Grafana cannot run here.
// It knows the panel types config/metrics/dashboard.json uses and nothing else of Grafana; it
// must not start processes or read a cluster (package dashboardpicture does).
package dashrender

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
)

// Dashboard is the part of a Grafana dashboard model the renderer reads.
type Dashboard struct {
	Title      string  `json:"title"`
	Panels     []Panel `json:"panels"`
	Templating struct {
		List []Variable `json:"list"`
	} `json:"templating"`
}

// Variable is a templating variable.
type Variable struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	IncludeAll bool   `json:"includeAll"`
	AllValue   string `json:"allValue"`
}

// Panel is one panel; a row holds its panels only while collapsed.
type Panel struct {
	Type            string           `json:"type"`
	Title           string           `json:"title"`
	GridPos         GridPos          `json:"gridPos"`
	Targets         []Target         `json:"targets"`
	Options         Options          `json:"options"`
	FieldConfig     FieldConfig      `json:"fieldConfig"`
	Transformations []Transformation `json:"transformations"`
	Panels          []Panel          `json:"panels"`
	Collapsed       bool             `json:"collapsed"`
}

// GridPos is a panel's place on Grafana's 24-column grid.
type GridPos struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// Target is one query of a panel.
type Target struct {
	RefID        string `json:"refId"`
	Expr         string `json:"expr"`
	LegendFormat string `json:"legendFormat"`
	Format       string `json:"format"`
	Instant      bool   `json:"instant"`
}

// Options are the panel options the renderer honours.
type Options struct {
	PieType     string   `json:"pieType"`
	Orientation string   `json:"orientation"`
	ColorMode   string   `json:"colorMode"`
	TextMode    string   `json:"textMode"`
	SortBy      []SortBy `json:"sortBy"`
}

// FieldConfig holds the field defaults: unit, thresholds and value mappings.
type FieldConfig struct {
	Defaults struct {
		Unit       string     `json:"unit"`
		Thresholds Thresholds `json:"thresholds"`
		Mappings   []Mapping  `json:"mappings"`
	} `json:"defaults"`
}

// Thresholds colour a value by the last step it reaches.
type Thresholds struct {
	Steps []struct {
		Color string   `json:"color"`
		Value *float64 `json:"value"`
	} `json:"steps"`
}

// Mapping is a Grafana value mapping of type "value": exact values to a text and a colour.
type Mapping struct {
	Type    string                  `json:"type"`
	Options map[string]MappedResult `json:"options"`
}

// MappedResult is what a mapped value shows.
type MappedResult struct {
	Text  string `json:"text"`
	Color string `json:"color"`
	Index int    `json:"index"`
}

// Transformation is an "organize" (exclude and rename columns) or a "merge" of table frames.
type Transformation struct {
	ID      string `json:"id"`
	Options struct {
		ExcludeByName map[string]bool   `json:"excludeByName"`
		RenameByName  map[string]string `json:"renameByName"`
	} `json:"options"`
}

// Load reads a dashboard JSON file.
func Load(path string) (*Dashboard, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d := &Dashboard{}
	if err := json.Unmarshal(data, d); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	return d, nil
}

// AllValues returns every variable an expression may name, set to what Grafana's "All" selects:
// the variable's allValue, or ".*" (the picture shows the whole fleet). A datasource variable
// picks the data source, never a query's text, so it has no value here.
func (d *Dashboard) AllValues() map[string]string {
	vars := map[string]string{}
	for _, v := range d.Templating.List {
		if v.Type == "datasource" {
			continue
		}
		vars[v.Name] = ".*"
		if v.AllValue != "" {
			vars[v.Name] = v.AllValue
		}
	}
	return vars
}

// variableRef matches Grafana's three variable syntaxes: $name, ${name} (or ${name:format}) and [[name]].
var variableRef = regexp.MustCompile(`\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)`)

// Substitute replaces the variables in expr. A variable the dashboard does not define is an
// error: Grafana would send the expression with the reference left in, and Prometheus would
// reject it or match nothing.
func Substitute(expr string, vars map[string]string) (string, error) {
	var missing string
	out := variableRef.ReplaceAllStringFunc(expr, func(ref string) string {
		m := variableRef.FindStringSubmatch(ref)
		name := m[1] + m[2] + m[3]
		v, ok := vars[name]
		if !ok {
			missing = name
			return ref
		}
		return v
	})
	if missing != "" {
		return "", fmt.Errorf("%s names variable $%s, which the dashboard does not define", expr, missing)
	}
	return out, nil
}
