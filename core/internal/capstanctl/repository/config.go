package repository

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"capstan.dev/core/internal/capstanctl/clusterctl"
)

// Config is clusterctl's configuration file as capstanctl reads it: the providers list and the
// variables (every other top-level key with a scalar value, as clusterctl reads them).
type Config struct {
	// Path is the file read; "" when there was none.
	Path      string
	Providers []ProviderEntry
	// variables are keyed by lower-cased name: clusterctl's reader (viper) ignores case.
	variables map[string]string
}

// ProviderEntry is one item of the file's providers list.
type ProviderEntry struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	Type string `json:"type"`
}

// configNames are the file names looked for in each configuration directory, in order:
// capstanctl.yaml first, as the file a user wrote for capstanctl alone.
var configNames = []string{"capstanctl.yaml", "clusterctl.yaml"}

// DefaultPaths are the files read when --config is not given, in order, as clusterctl looks
// for its file: $XDG_CONFIG_HOME/cluster-api (XDG_CONFIG_HOME defaulting to ~/.config), then
// ~/.cluster-api.
func DefaultPaths(getenv func(string) string, home string) []string {
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	}
	var out []string
	for _, dir := range []string{filepath.Join(xdg, "cluster-api"), filepath.Join(home, ".cluster-api")} {
		for _, n := range configNames {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

// FindConfig reads path when it is set (its absence is an error), else the first of defaults
// that exists; none existing is an empty Config, which configures no provider.
func FindConfig(path string, defaults []string) (Config, error) {
	if path != "" {
		return ReadConfig(path)
	}
	for _, p := range defaults {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		return ReadConfig(p)
	}
	return Config{}, nil
}

// ReadConfig reads and checks one configuration file.
func ReadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("reading the configuration file: %w", err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Config{}, fmt.Errorf("configuration file %s is not YAML: %w", path, err)
	}
	c := Config{Path: path, variables: map[string]string{}}
	for k, v := range doc {
		switch v.(type) {
		case string, bool, float64, int64:
			c.variables[strings.ToLower(k)] = fmt.Sprint(v)
		}
	}
	if raw, ok := doc["providers"]; ok {
		js, err := yaml.Marshal(raw)
		if err != nil {
			return Config{}, fmt.Errorf("configuration file %s: providers: %w", path, err)
		}
		if err := yaml.UnmarshalStrict(js, &c.Providers); err != nil {
			return Config{}, fmt.Errorf("configuration file %s: providers must be a list of {name, url, type}: %w", path, err)
		}
	}
	for i, p := range c.Providers {
		if p.Name == "" || p.URL == "" {
			return Config{}, fmt.Errorf("configuration file %s: providers[%d] needs a name and a url", path, i)
		}
		if !slices.Contains(clusterctl.Types, p.Type) {
			return Config{}, fmt.Errorf("configuration file %s: provider %s has type %q: capstanctl installs %s",
				path, p.Name, p.Type, strings.Join(clusterctl.Types, ", "))
		}
	}
	return c, nil
}

// Variable returns the file's value of a variable, ignoring case as clusterctl does.
func (c Config) Variable(name string) (string, bool) {
	v, ok := c.variables[strings.ToLower(name)]
	return v, ok
}

// Provider returns the entry of the provider name of type providerType; when the file lists it
// more than once, the last entry wins, as clusterctl lets a user's entry override its defaults.
func (c Config) Provider(name, providerType string) (ProviderEntry, bool) {
	for i := len(c.Providers) - 1; i >= 0; i-- {
		if p := c.Providers[i]; p.Name == name && p.Type == providerType {
			return p, true
		}
	}
	return ProviderEntry{}, false
}
