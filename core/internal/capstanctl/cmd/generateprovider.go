package cmd

import (
	"fmt"
	"os"
	"strings"

	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/template"
)

// template is the raw template to render and where variables not set by flags come from:
// without --infrastructure a built-in flavor and the environment; with it the provider
// release's cluster template and, as clusterctl does, the environment, then the configuration
// file's variables.
func (o *generateFlags) template() ([]byte, func(string) (string, bool), error) {
	if o.infrastructure == "" {
		raw, err := template.Load(o.flavor)
		return raw, os.LookupEnv, err
	}
	cfg, err := readConfig(o.config)
	if err != nil {
		return nil, nil, err
	}
	name, version, _ := strings.Cut(o.infrastructure, ":")
	e, ok := cfg.Provider(name, clusterctl.InfrastructureProvider)
	if !ok {
		where := "no configuration file was found"
		if cfg.Path != "" {
			where = cfg.Path + " lists no InfrastructureProvider " + name
		}
		return nil, nil, fmt.Errorf("--infrastructure %s: %s; Capstan's own templates need no --infrastructure (see --flavor)", o.infrastructure, where)
	}
	src, v, err := resolveSource(e, version)
	if err != nil {
		return nil, nil, err
	}
	raw, err := src.Template(v, o.flavor)
	if err != nil {
		return nil, nil, err
	}
	env := func(name string) (string, bool) {
		if val, ok := os.LookupEnv(name); ok {
			return val, true
		}
		return cfg.Variable(name)
	}
	return raw, env, nil
}
