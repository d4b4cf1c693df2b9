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

// The subset of the Ignition spec 2.3 schema this package writes, with its JSON names.

// Version is the Ignition spec version of the config, upstream's.
const Version = "2.3.0"

type config struct {
	Ignition ignitionSection `json:"ignition"`
	Passwd   *passwd         `json:"passwd,omitempty"`
	Storage  *storage        `json:"storage,omitempty"`
	Systemd  *systemd        `json:"systemd,omitempty"`
}

type ignitionSection struct {
	Version string `json:"version"`
}

type passwd struct {
	Users []user `json:"users,omitempty"`
}

type user struct {
	Name              string   `json:"name"`
	Gecos             string   `json:"gecos,omitempty"`
	Groups            []string `json:"groups,omitempty"`
	HomeDir           string   `json:"homeDir,omitempty"`
	NoCreateHome      bool     `json:"noCreateHome,omitempty"`
	NoLogInit         bool     `json:"noLogInit,omitempty"`
	NoUserGroup       bool     `json:"noUserGroup,omitempty"`
	PasswordHash      *string  `json:"passwordHash,omitempty"`
	PrimaryGroup      string   `json:"primaryGroup,omitempty"`
	SSHAuthorizedKeys []string `json:"sshAuthorizedKeys,omitempty"`
	Shell             string   `json:"shell,omitempty"`
	System            bool     `json:"system,omitempty"`
	UID               *int     `json:"uid,omitempty"`
}

type storage struct {
	Disks       []disk       `json:"disks,omitempty"`
	Files       []file       `json:"files,omitempty"`
	Filesystems []filesystem `json:"filesystems,omitempty"`
}

type disk struct {
	Device     string      `json:"device"`
	Partitions []partition `json:"partitions,omitempty"`
	WipeTable  bool        `json:"wipeTable,omitempty"`
}

// partition is empty: one partition spanning the device.
type partition struct{}

type filesystem struct {
	Mount *mount `json:"mount,omitempty"`
	Name  string `json:"name,omitempty"`
}

type mount struct {
	Device         string   `json:"device"`
	Format         string   `json:"format"`
	Label          *string  `json:"label,omitempty"`
	Options        []string `json:"options,omitempty"`
	WipeFilesystem bool     `json:"wipeFilesystem,omitempty"`
}

type file struct {
	Filesystem string    `json:"filesystem"`
	Group      *identity `json:"group,omitempty"`
	Overwrite  *bool     `json:"overwrite,omitempty"`
	Path       string    `json:"path"`
	User       *identity `json:"user,omitempty"`
	Append     bool      `json:"append,omitempty"`
	Contents   contents  `json:"contents"`
	Mode       *int      `json:"mode,omitempty"`
}

type identity struct {
	ID   *int   `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

type contents struct {
	Compression  string        `json:"compression,omitempty"`
	Source       string        `json:"source"`
	Verification *verification `json:"verification,omitempty"`
}

type verification struct {
	Hash *string `json:"hash,omitempty"`
}

type systemd struct {
	Units []unit `json:"units,omitempty"`
}

type unit struct {
	Contents string   `json:"contents,omitempty"`
	Dropins  []dropin `json:"dropins,omitempty"`
	Enable   bool     `json:"enable,omitempty"`
	Enabled  *bool    `json:"enabled,omitempty"`
	Mask     bool     `json:"mask,omitempty"`
	Name     string   `json:"name"`
}

type dropin struct {
	Contents string `json:"contents,omitempty"`
	Name     string `json:"name"`
}
