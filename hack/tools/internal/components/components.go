// Package components renders each provider's kustomize base (config/default) into the
// components file capstanctl embeds (core/internal/capstanctl/components/<provider>.yaml).
// It runs kustomize as a library (sigs.k8s.io/kustomize/api/krusty) with the options the
// kustomize CLI uses by default (files only from within each kustomization's root, the legacy
// kind order), so a rendered file is byte for byte what `kustomize build <provider>/config/default`
// prints. It lives in hack/tools because the core module cannot read other modules' files
// through imports and must not depend on kustomize; it writes nothing but the components files.
package components

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Providers are the module directories whose config/default is rendered, in the order
// capstanctl lists them; each file is named <dir>.yaml.
var Providers = []string{"core", "bootstrap-kubeadm", "infrastructure-docker"}

// OutputDir is where the rendered files live, relative to the repository root.
const OutputDir = "core/internal/capstanctl/components"

// Build returns what `kustomize build <root>/<provider>/config/default` prints.
func Build(root, provider string) ([]byte, error) {
	dir, err := filepath.Abs(filepath.Join(root, provider, "config", "default"))
	if err != nil {
		return nil, err
	}
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionLegacy // the kustomize CLI's default
	resources, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	out, err := resources.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	return out, nil
}

// Write renders every provider into root/OutputDir, rewriting only files whose
// content changed, and returns the paths it wrote.
func Write(root string) ([]string, error) {
	var written []string
	for _, p := range Providers {
		out, err := Build(root, p)
		if err != nil {
			return written, err
		}
		path := filepath.Join(root, OutputDir, p+".yaml")
		if old, err := os.ReadFile(path); err == nil && string(old) == string(out) {
			continue
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return written, fmt.Errorf("writing %s: %w", path, err)
		}
		written = append(written, path)
	}
	return written, nil
}
