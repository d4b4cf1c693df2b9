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

package ignition

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// carried are the CLC sections, by JSON path, the config carries; each is decoded with the
// function that converts it.
var carried = map[string]func(raw json.RawMessage, p *clcParse, add *config) error{
	"storage.files": func(raw json.RawMessage, p *clcParse, add *config) error {
		var files []clcFile
		if err := p.decode("storage.files", raw, &files); err != nil {
			return err
		}
		for i, f := range files {
			out, err := f.convert(fmt.Sprintf("storage.files[%d]", i), p)
			if err != nil {
				return err
			}
			add.Storage.Files = append(add.Storage.Files, out)
		}
		return nil
	},
	"systemd.units": func(raw json.RawMessage, p *clcParse, add *config) error {
		var units []clcUnit
		if err := p.decode("systemd.units", raw, &units); err != nil {
			return err
		}
		for i, u := range units {
			if u.Name == "" {
				return fmt.Errorf("systemd.units[%d].name: a unit needs a name", i)
			}
			out := unit{Name: u.Name, Enable: u.Enable, Enabled: u.Enabled, Mask: u.Mask, Contents: u.Contents}
			for j, d := range u.Dropins {
				if d.Name == "" {
					return fmt.Errorf("systemd.units[%d].dropins[%d].name: a drop-in needs a name", i, j)
				}
				out.Dropins = append(out.Dropins, dropin(d))
			}
			add.Systemd.Units = append(add.Systemd.Units, out)
		}
		return nil
	},
	"passwd.users": func(raw json.RawMessage, p *clcParse, add *config) error {
		var users []clcUser
		if err := p.decode("passwd.users", raw, &users); err != nil {
			return err
		}
		for i, u := range users {
			if u.Name == "" {
				return fmt.Errorf("passwd.users[%d].name: a user needs a name", i)
			}
			add.Passwd.Users = append(add.Passwd.Users, user(u))
		}
		return nil
	},
}

// clcParse collects the warnings of one document; strict turns the first into an error.
type clcParse struct {
	strict   bool
	warnings []string
}

func (p *clcParse) warn(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if p.strict {
		return fmt.Errorf("%s (strict is true)", msg)
	}
	p.warnings = append(p.warnings, msg)
	return nil
}

// decode decodes a carried section; an unknown field is a warning, and is then ignored.
func (p *clcParse) decode(section string, raw json.RawMessage, into any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	err := d.Decode(into)
	if err == nil {
		return nil
	}
	if !strings.Contains(err.Error(), "unknown field") {
		return fmt.Errorf("%s: %w", section, err)
	}
	if werr := p.warn("%s: %v: ignored", section, err); werr != nil {
		return werr
	}
	return json.Unmarshal(raw, into)
}

// parseCLC reads a Container Linux Config into the config it appends, and the warnings.
func parseCLC(doc []byte, strict bool) (*config, []string, error) {
	raw, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("not a Container Linux Config (YAML): %w", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, nil, fmt.Errorf("not a Container Linux Config: want a mapping of sections (storage, systemd, passwd, ...): %w", err)
	}
	p := &clcParse{strict: strict}
	add := &config{Passwd: &passwd{}, Storage: &storage{}, Systemd: &systemd{}}
	sections, err := clcSections(top)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(sections)) {
		value := sections[name]
		if empty(value) {
			continue
		}
		convert, ok := carried[name]
		if !ok {
			if err := p.warn("section %s is not carried into the bootstrap data (Capstan carries storage.files, systemd.units and passwd.users): ignored", name); err != nil {
				return nil, nil, err
			}
			continue
		}
		if err := convert(value, p, add); err != nil {
			return nil, nil, err
		}
	}
	return add, p.warnings, nil
}

// clcSections flattens the top level and the storage, systemd and passwd mappings into
// "section.subsection" keys.
func clcSections(top map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	for key, value := range top {
		if key != "storage" && key != "systemd" && key != "passwd" || empty(value) {
			out[key] = value
			continue
		}
		var sub map[string]json.RawMessage
		if err := json.Unmarshal(value, &sub); err != nil {
			return nil, fmt.Errorf("%s: want a mapping: %w", key, err)
		}
		for k, v := range sub {
			out[key+"."+k] = v
		}
	}
	return out, nil
}

// empty reports whether a section holds nothing: null, {}, [] or false.
func empty(raw json.RawMessage) bool {
	switch string(bytes.TrimSpace(raw)) {
	case "", "null", "{}", "[]", "false", "0", `""`:
		return true
	}
	return false
}

// The CLC sections carried, with the transpiler's YAML names.

type clcFile struct {
	Filesystem string       `json:"filesystem"`
	Path       string       `json:"path"`
	User       *clcIdentity `json:"user"`
	Group      *clcIdentity `json:"group"`
	Mode       *int         `json:"mode"`
	Contents   struct {
		Inline string `json:"inline"`
		Local  string `json:"local"`
		Remote struct {
			URL          string `json:"url"`
			Compression  string `json:"compression"`
			Verification struct {
				Hash struct {
					Function string `json:"function"`
					Sum      string `json:"sum"`
				} `json:"hash"`
			} `json:"verification"`
		} `json:"remote"`
	} `json:"contents"`
	Overwrite *bool `json:"overwrite"`
	Append    bool  `json:"append"`
}

type clcIdentity struct {
	ID   *int   `json:"id"`
	Name string `json:"name"`
}

// convert is the transpiler's conversion of a file: an inline content becomes a percent-encoded
// data URL, no content an empty file, no filesystem "root", no mode 0644 (a warning).
func (f clcFile) convert(where string, p *clcParse) (file, error) {
	if !strings.HasPrefix(f.Path, "/") {
		return file{}, fmt.Errorf("%s.path: %q is not an absolute path", where, f.Path)
	}
	c := f.Contents
	if c.Local != "" {
		return file{}, fmt.Errorf("%s.contents.local: local files are not supported (there is no files directory); put the content inline", where)
	}
	if c.Inline != "" && c.Remote.URL != "" {
		return file{}, fmt.Errorf("%s.contents: only one of inline and remote.url can be set", where)
	}
	out := file{Filesystem: f.Filesystem, Path: f.Path, Overwrite: f.Overwrite, Append: f.Append, Mode: f.Mode,
		Contents: contents{Source: dataURL([]byte(c.Inline)), Compression: c.Remote.Compression}}
	if out.Filesystem == "" {
		out.Filesystem = "root"
	}
	if c.Remote.URL != "" {
		out.Contents.Source = c.Remote.URL
	}
	if h := c.Remote.Verification.Hash; h.Function != "" || h.Sum != "" {
		out.Contents.Verification = &verification{Hash: ptrTo(h.Function + "-" + h.Sum)}
	}
	if f.User != nil {
		out.User = &identity{ID: f.User.ID, Name: f.User.Name}
	}
	if f.Group != nil {
		out.Group = &identity{ID: f.Group.ID, Name: f.Group.Name}
	}
	if out.Mode == nil {
		out.Mode = ptrTo(modeDefault)
		if !f.Append {
			if err := p.warn("%s.mode: unspecified for file %s, defaulting to 0644", where, f.Path); err != nil {
				return file{}, err
			}
		}
	}
	return out, nil
}

type clcUnit struct {
	Name     string      `json:"name"`
	Enable   bool        `json:"enable"`
	Enabled  *bool       `json:"enabled"`
	Mask     bool        `json:"mask"`
	Contents string      `json:"contents"`
	Dropins  []clcDropin `json:"dropins"`
}

type clcDropin struct {
	Contents string `json:"contents"`
	Name     string `json:"name"`
}

// clcUser has the fields of user in its order, with the transpiler's YAML names.
type clcUser struct {
	Name              string   `json:"name"`
	Gecos             string   `json:"gecos"`
	Groups            []string `json:"groups"`
	HomeDir           string   `json:"home_dir"`
	NoCreateHome      bool     `json:"no_create_home"`
	NoLogInit         bool     `json:"no_log_init"`
	NoUserGroup       bool     `json:"no_user_group"`
	PasswordHash      *string  `json:"password_hash"`
	PrimaryGroup      string   `json:"primary_group"`
	SSHAuthorizedKeys []string `json:"ssh_authorized_keys"`
	Shell             string   `json:"shell"`
	System            bool     `json:"system"`
	UID               *int     `json:"uid"`
}
