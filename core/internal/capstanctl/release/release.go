// Package release writes Capstan's providers as a clusterctl local repository: for each
// clusterctl provider, <dir>/<manifest label>/<version>/ holding its components file (the
// embedded components, split per provider, images tagged with the version), metadata.yaml and,
// for the infrastructure provider, the cluster templates capstanctl generates from (upstream's
// clusterctl reads templates from the infrastructure provider's repository) and, when asked,
// a `docker save` archive of each image its components run (<image name>.tar), read from the
// local Docker Engine: nothing is pulled, so the images are those make images built; and
// <dir>/clusterctl.yaml, whose providers point at those files, for `clusterctl --config`.
// It writes files only under the directory it is given and never talks to a cluster.
package release

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/template"
)

// ConfigFile is the clusterctl configuration Write puts beside the provider directories.
const ConfigFile = "clusterctl.yaml"

// OverridesDir is the (empty) overrides folder clusterctl.yaml names, so that files a user
// keeps under ~/.config/cluster-api/overrides never replace the release's.
const OverridesDir = "overrides"

// Config is the part of clusterctl.yaml Write fills.
type Config struct {
	Providers       []ConfigProvider `json:"providers"`
	OverridesFolder string           `json:"overridesFolder"`
}

// ConfigProvider is one entry of clusterctl.yaml's providers list.
type ConfigProvider struct {
	Name string `json:"name"`
	Type string `json:"type"`
	URL  string `json:"url"`
}

// Write writes the repository for version (a semantic version, v0.1.0) into dir, which is
// created if missing; the URLs in clusterctl.yaml are absolute, as clusterctl requires. With
// images not nil, each provider's images are saved beside its components; nil writes no
// archives (and needs no engine). It returns the files written.
func Write(ctx context.Context, dir, version string, images ImageSaver) ([]string, error) {
	if _, err := clusterctl.ParseVersion(version); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("release directory %s: %w", dir, err)
	}
	meta, err := clusterctl.NewMetadata(version)
	if err != nil {
		return nil, err
	}
	metaYAML, err := meta.YAML()
	if err != nil {
		return nil, err
	}
	var written []string
	cfg := Config{OverridesFolder: filepath.Join(abs, OverridesDir)}
	for _, p := range clusterctl.Providers {
		files, refs, err := providerFiles(p, version)
		if err != nil {
			return written, err
		}
		files["metadata.yaml"] = metaYAML
		vdir := filepath.Join(abs, p.Label, version)
		for _, name := range slices.Sorted(maps.Keys(files)) {
			path := filepath.Join(vdir, name)
			if err := writeFile(path, files[name]); err != nil {
				return written, err
			}
			written = append(written, path)
		}
		if images != nil {
			archives, err := saveArchives(ctx, images, vdir, p.Label, version, refs)
			written = append(written, archives...)
			if err != nil {
				return written, err
			}
		}
		cfg.Providers = append(cfg.Providers, ConfigProvider{Name: p.Name, Type: p.Type, URL: filepath.Join(vdir, p.File)})
	}
	if err := os.MkdirAll(cfg.OverridesFolder, 0o755); err != nil {
		return written, fmt.Errorf("creating %s: %w", cfg.OverridesFolder, err)
	}
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return written, err
	}
	path := filepath.Join(abs, ConfigFile)
	if err := writeFile(path, data); err != nil {
		return written, err
	}
	return append(written, path), nil
}

// providerFiles returns p's components file and, for the infrastructure provider, the
// templates, by file name, and the images the components run.
func providerFiles(p clusterctl.Provider, version string) (map[string][]byte, []string, error) {
	ms, err := components.Select([]string{p.Module})
	if err != nil {
		return nil, nil, err
	}
	objs, err := ms[0].Objects()
	if err != nil {
		return nil, nil, err
	}
	if err := components.SetImageTag(objs, version); err != nil {
		return nil, nil, err
	}
	if err := canonicalImages(objs); err != nil {
		return nil, nil, err
	}
	own, err := clusterctl.Split(p, objs)
	if err != nil {
		return nil, nil, err
	}
	data, err := marshalAll(own)
	if err != nil {
		return nil, nil, fmt.Errorf("provider %s: %w", p.Label, err)
	}
	files, images := map[string][]byte{p.File: data}, components.Images(own)
	if p.Type != clusterctl.InfrastructureProvider {
		return files, images, nil
	}
	for _, flavor := range template.Flavors() {
		raw, err := template.Load(flavor)
		if err != nil {
			return nil, nil, err
		}
		name := "cluster-template.yaml"
		if flavor != template.DefaultFlavor {
			name = "cluster-template-" + flavor + ".yaml"
		}
		files[name] = raw
	}
	return files, images, nil
}

// marshalAll renders objs as one multi-document YAML stream.
func marshalAll(objs []*unstructured.Unstructured) ([]byte, error) {
	var buf bytes.Buffer
	for i, o := range objs {
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(data)
	}
	return buf.Bytes(), nil
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
