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

// diskSetup is a cloud-init disk_setup entry; the map key is the device. Layout is a bool (one
// partition spanning the device, or none) or a list of partitions, each a percentage or a
// [percentage, type] pair.
type diskSetup struct {
	TableType string `json:"table_type,omitempty"`
	Layout    any    `json:"layout"`
	Overwrite *bool  `json:"overwrite,omitempty"`
}

// partitionTypeCodes are the codes cloud-init's disk_setup takes for the partition types the
// KubeadmConfig API names, as upstream's bootstrap provider renders them; any other type (a GPT
// partition type GUID) is passed as written.
var partitionTypeCodes = map[string]string{
	"Linux": "83", "LinuxSwap": "82", "LinuxRAID": "fd", "LVM": "8e", "Fat32": "0c", "NTFS": "07", "LinuxExtended": "85",
}

// layout is the disk_setup layout of p: its bool, or its partitions when it lists them.
func layout(p Partition) (any, error) {
	if len(p.DiskLayout) == 0 {
		return p.Layout, nil
	}
	out := make([]any, 0, len(p.DiskLayout))
	total := int32(0)
	for i, part := range p.DiskLayout {
		if part.Percentage < 1 || part.Percentage > 100 {
			return nil, fmt.Errorf("diskLayout[%d].percentage is %d: a partition takes 1 to 100 percent of the device", i, part.Percentage)
		}
		total += part.Percentage
		if part.Type == "" {
			out = append(out, part.Percentage)
			continue
		}
		if err := checkTexts(fmt.Sprintf("diskLayout[%d].partitionType", i), []string{part.Type}); err != nil {
			return nil, err
		}
		code, named := partitionTypeCodes[part.Type]
		if !named {
			code = part.Type
		}
		out = append(out, []any{part.Percentage, code})
	}
	if total > 100 {
		return nil, fmt.Errorf("the diskLayout percentages add up to %d: the partitions of a device take at most 100 percent of it", total)
	}
	return out, nil
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
			l, err := layout(p)
			if err != nil {
				return fmt.Errorf("diskSetup.partitions[%d]: %w", i, err)
			}
			doc.DiskSetup[p.Device] = diskSetup{TableType: p.TableType, Layout: l, Overwrite: p.Overwrite}
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
