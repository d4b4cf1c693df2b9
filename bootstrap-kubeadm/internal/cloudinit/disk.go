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

package cloudinit

import (
	"fmt"
	"slices"
)

// diskSetup is a cloud-init disk_setup entry; the map key is the device.
type diskSetup struct {
	TableType string `json:"table_type,omitempty"`
	Layout    bool   `json:"layout"`
	Overwrite *bool  `json:"overwrite,omitempty"`
}

// fsSetup is a cloud-init fs_setup entry.
type fsSetup struct {
	Label      string   `json:"label,omitempty"`
	Filesystem string   `json:"filesystem"`
	Device     string   `json:"device"`
	Partition  string   `json:"partition,omitempty"`
	Overwrite  *bool    `json:"overwrite,omitempty"`
	ReplaceFS  string   `json:"replace_fs,omitempty"`
	ExtraOpts  []string `json:"extra_opts,omitempty"`
}

// addDisksAndBoot adds bootcmd, disk_setup, fs_setup and mounts to doc. cloud-init keys
// disk_setup by device, so a device may be partitioned once only.
func addDisksAndBoot(doc *document, in Input) error {
	if err := checkTexts("bootCommands", in.BootCommands); err != nil {
		return err
	}
	doc.BootCmd = slices.Clone(in.BootCommands)
	if d := in.DiskSetup; d != nil {
		for i, p := range d.Partitions {
			if p.Device == "" {
				return fmt.Errorf("diskSetup.partitions[%d] has no device", i)
			}
			if err := checkTexts(fmt.Sprintf("diskSetup.partitions[%d]", i), []string{p.Device, p.TableType}); err != nil {
				return err
			}
			if _, twice := doc.DiskSetup[p.Device]; twice {
				return fmt.Errorf("diskSetup.partitions[%d]: device %q is partitioned twice: cloud-init takes one partition table per device; merge the entries", i, p.Device)
			}
			if doc.DiskSetup == nil {
				doc.DiskSetup = map[string]diskSetup{}
			}
			doc.DiskSetup[p.Device] = diskSetup{TableType: p.TableType, Layout: p.Layout, Overwrite: p.Overwrite}
		}
		for i, f := range d.Filesystems {
			if f.Device == "" || f.Filesystem == "" {
				return fmt.Errorf("diskSetup.filesystems[%d] needs a device and a filesystem type", i)
			}
			texts := append([]string{f.Device, f.Filesystem, f.Label, f.Partition, f.ReplaceFS}, f.ExtraOpts...)
			if err := checkTexts(fmt.Sprintf("diskSetup.filesystems[%d]", i), texts); err != nil {
				return err
			}
			doc.FSSetup = append(doc.FSSetup, fsSetup{
				Label: f.Label, Filesystem: f.Filesystem, Device: f.Device, Partition: f.Partition,
				Overwrite: f.Overwrite, ReplaceFS: f.ReplaceFS, ExtraOpts: slices.Clone(f.ExtraOpts),
			})
		}
	}
	for i, m := range in.Mounts {
		if len(m) < 2 {
			return fmt.Errorf("mounts[%d] is %q: a mount needs at least a device and a mount point", i, m)
		}
		if err := checkTexts(fmt.Sprintf("mounts[%d]", i), m); err != nil {
			return err
		}
		doc.Mounts = append(doc.Mounts, slices.Clone(m))
	}
	return nil
}
