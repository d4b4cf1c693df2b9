package repository

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"

	"capstan.dev/core/internal/capstanctl/clusterctl"
)

// Latest is the version word meaning the highest version the repository holds.
const Latest = "latest"

// Source is one provider's local repository: {Base}/{Label}/{version}/{ComponentsFile}.
type Source struct {
	Name, Type, Label string
	// Dir is {basepath}/{provider-label}: one directory per version below it.
	Dir string
	// ComponentsFile is the components file's name in every version directory.
	ComponentsFile string
	// DefaultVersion is the url's version directory: a version, or Latest.
	DefaultVersion string
}

// NewSource checks a configured provider's url as clusterctl checks a local repository's: a
// local absolute path or file:// URL ending in {provider-label}/{version}/{components file},
// where provider-label is the provider's manifest label and version a semantic version or
// "latest".
func NewSource(e ProviderEntry) (Source, error) {
	label, err := clusterctl.ManifestLabel(e.Name, e.Type)
	if err != nil {
		return Source{}, err
	}
	u, err := url.Parse(e.URL)
	if err != nil {
		return Source{}, fmt.Errorf("provider %s: url %q: %w", label, e.URL, err)
	}
	path := e.URL
	switch u.Scheme {
	case "file":
		path = u.Path
	case "":
	default:
		return Source{}, fmt.Errorf("provider %s: url %q is a %s repository, and capstanctl reads local repositories only "+
			"(it does not reach the network): download the release into {basepath}/%s/{version}/ and point url at its components file",
			label, e.URL, u.Scheme, label)
	}
	if !filepath.IsAbs(path) {
		return Source{}, fmt.Errorf("provider %s: url %q must be an absolute path or file:// URL, as clusterctl requires", label, e.URL)
	}
	path = filepath.Clean(path)
	file, versionDir := filepath.Base(path), filepath.Base(filepath.Dir(path))
	dir := filepath.Dir(filepath.Dir(path))
	if filepath.Base(dir) != label {
		return Source{}, fmt.Errorf("provider %s: url %q must have the form {basepath}/%s/{version}/{components file}", label, e.URL, label)
	}
	if versionDir != Latest {
		if _, err := clusterctl.ParseVersion(versionDir); err != nil {
			return Source{}, fmt.Errorf("provider %s: url %q: its version directory must be a version or %q: %w", label, e.URL, Latest, err)
		}
	}
	return Source{Name: e.Name, Type: e.Type, Label: label, Dir: dir, ComponentsFile: file, DefaultVersion: versionDir}, nil
}

// Versions lists the repository's version directories, highest first; directories that are
// not semantic versions are skipped, as clusterctl skips them.
func (s Source) Versions() ([]string, error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("listing the versions of provider %s: %w", s.Label, err)
	}
	type parsed struct {
		name string
		v    *version.Version
	}
	var vs []parsed
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if v, err := clusterctl.ParseVersion(e.Name()); err == nil {
			vs = append(vs, parsed{e.Name(), v})
		}
	}
	slices.SortFunc(vs, func(a, b parsed) int {
		switch {
		case b.v.LessThan(a.v):
			return -1
		case a.v.LessThan(b.v):
			return 1
		}
		return 0
	})
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.name)
	}
	return out, nil
}

// Resolve turns a requested version ("" for the url's, or Latest) into a version directory
// that exists. Latest is the highest release, a pre-release only when there is no release.
func (s Source) Resolve(requested string) (string, error) {
	if requested == "" {
		requested = s.DefaultVersion
	}
	versions, err := s.Versions()
	if err != nil {
		return "", err
	}
	if requested == Latest {
		for _, v := range versions {
			if parsed, _ := clusterctl.ParseVersion(v); parsed.PreRelease() == "" {
				return v, nil
			}
		}
		if len(versions) == 0 {
			return "", fmt.Errorf("repository %s of provider %s holds no version directory (v1.2.3)", s.Dir, s.Label)
		}
		return versions[0], nil
	}
	if _, err := clusterctl.ParseVersion(requested); err != nil {
		return "", fmt.Errorf("provider %s: %w", s.Label, err)
	}
	if !slices.Contains(versions, requested) {
		return "", fmt.Errorf("repository %s of provider %s has no version %s: it has %s",
			s.Dir, s.Label, requested, listOrNone(versions))
	}
	return requested, nil
}

func listOrNone(vs []string) string {
	if len(vs) == 0 {
		return "none"
	}
	return strings.Join(vs, ", ")
}

// Release is one version of a provider, read and checked.
type Release struct {
	Source
	Version    string
	Components []byte
	Metadata   clusterctl.Metadata
}

// ReadMetadata reads version v's metadata.yaml.
func (s Source) ReadMetadata(v string) (clusterctl.Metadata, error) {
	metaPath := filepath.Join(s.Dir, v, "metadata.yaml")
	meta, err := os.ReadFile(metaPath)
	if errors.Is(err, fs.ErrNotExist) {
		return clusterctl.Metadata{}, fmt.Errorf("repository %s has no metadata.yaml for %s (%s): clusterctl needs it to know which contract the release implements",
			s.Dir, v, metaPath)
	}
	if err != nil {
		return clusterctl.Metadata{}, fmt.Errorf("reading metadata.yaml of %s %s: %w", s.Label, v, err)
	}
	m, err := clusterctl.ParseMetadata(meta)
	if err != nil {
		return clusterctl.Metadata{}, fmt.Errorf("%s: %w", metaPath, err)
	}
	return m, nil
}

// Read reads version v's components and metadata.yaml and checks that the metadata says v
// implements contract (the core's).
func (s Source) Read(v, contract string) (Release, error) {
	dir := filepath.Join(s.Dir, v)
	m, err := s.ReadMetadata(v)
	if err != nil {
		return Release{}, err
	}
	if err := checkContract(s.Label, v, m, contract); err != nil {
		return Release{}, err
	}
	compPath := filepath.Join(dir, s.ComponentsFile)
	comps, err := os.ReadFile(compPath)
	if err != nil {
		return Release{}, fmt.Errorf("reading the components of %s %s: %w", s.Label, v, err)
	}
	return Release{Source: s, Version: v, Components: comps, Metadata: m}, nil
}

// checkContract refuses a release whose series (major.minor) the metadata does not list, or
// lists with another contract than want.
func checkContract(label, v string, m clusterctl.Metadata, want string) error {
	parsed, err := clusterctl.ParseVersion(v)
	if err != nil {
		return err
	}
	var series []string
	for _, rs := range m.ReleaseSeries {
		series = append(series, fmt.Sprintf("%d.%d", rs.Major, rs.Minor))
		if rs.Major != parsed.Major() || rs.Minor != parsed.Minor() {
			continue
		}
		if rs.Contract != want {
			return fmt.Errorf("%s %s implements contract %s (metadata.yaml, release series %d.%d), and Capstan's core implements %s: "+
				"choose a release of %s whose series declares %s", label, v, rs.Contract, rs.Major, rs.Minor, want, label, want)
		}
		return nil
	}
	return fmt.Errorf("metadata.yaml of %s %s lists no release series %d.%d (it lists %s), so its contract is unknown; "+
		"Capstan's core implements %s", label, v, parsed.Major(), parsed.Minor(), listOrNone(series), want)
}

// Template reads version v's cluster template: cluster-template.yaml, or for a flavor
// cluster-template-<flavor>.yaml, as clusterctl names them.
func (s Source) Template(v, flavor string) ([]byte, error) {
	name := "cluster-template.yaml"
	if flavor != "" {
		name = "cluster-template-" + flavor + ".yaml"
	}
	data, err := os.ReadFile(filepath.Join(s.Dir, v, name))
	if errors.Is(err, fs.ErrNotExist) {
		var have []string
		matches, _ := filepath.Glob(filepath.Join(s.Dir, v, "cluster-template*.yaml"))
		for _, m := range matches {
			have = append(have, filepath.Base(m))
		}
		return nil, fmt.Errorf("provider %s %s has no %s: it has %s", s.Label, v, name, listOrNone(have))
	}
	return data, err
}
