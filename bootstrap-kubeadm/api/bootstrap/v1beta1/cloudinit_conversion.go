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

package v1beta1

import (
	"slices"

	"k8s.io/utils/ptr"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/contracts/conversion"
)

func filesUp(in []File) []bootstrapv1.File {
	var out []bootstrapv1.File
	for _, f := range in {
		file := bootstrapv1.File{Path: f.Path, Owner: f.Owner, Permissions: f.Permissions, Encoding: f.Encoding,
			ContentFormat: f.ContentFormat, Append: conversion.BoolIntent(f.Append, nil), Content: f.Content}
		if f.ContentFrom != nil {
			file.ContentFrom = bootstrapv1.FileSource{Secret: bootstrapv1.SecretFileSource(f.ContentFrom.Secret)}
		}
		out = append(out, file)
	}
	return out
}

func filesDown(in []bootstrapv1.File) []File {
	var out []File
	for _, f := range in {
		out = append(out, File{Path: f.Path, Owner: f.Owner, Permissions: f.Permissions, Encoding: f.Encoding,
			ContentFormat: f.ContentFormat, Append: deref(f.Append), Content: f.Content,
			ContentFrom: ptrUnlessZero(FileSource{Secret: SecretFileSource(f.ContentFrom.Secret)})})
	}
	return out
}

func filesDownFor(in []bootstrapv1.File, _ []File) []File { return filesDown(in) }

func usersUp(in []User) []bootstrapv1.User {
	var out []bootstrapv1.User
	for _, u := range in {
		user := bootstrapv1.User{Name: u.Name, Gecos: deref(u.Gecos), Groups: deref(u.Groups), HomeDir: deref(u.HomeDir),
			Inactive: conversion.Copy(u.Inactive), Shell: deref(u.Shell), Passwd: deref(u.Passwd), PrimaryGroup: deref(u.PrimaryGroup),
			LockPassword: conversion.Copy(u.LockPassword), Sudo: deref(u.Sudo), SSHAuthorizedKeys: stringsCopy(u.SSHAuthorizedKeys)}
		if u.PasswdFrom != nil {
			user.PasswdFrom = bootstrapv1.PasswdSource{Secret: bootstrapv1.SecretPasswdSource(u.PasswdFrom.Secret)}
		}
		out = append(out, user)
	}
	return out
}

func usersDown(in []bootstrapv1.User) []User {
	var out []User
	for _, u := range in {
		out = append(out, User{Name: u.Name, Gecos: conversion.NonZero(u.Gecos), Groups: conversion.NonZero(u.Groups),
			HomeDir: conversion.NonZero(u.HomeDir), Inactive: u.Inactive, Shell: conversion.NonZero(u.Shell),
			Passwd: conversion.NonZero(u.Passwd), PrimaryGroup: conversion.NonZero(u.PrimaryGroup), LockPassword: u.LockPassword,
			Sudo: conversion.NonZero(u.Sudo), SSHAuthorizedKeys: u.SSHAuthorizedKeys,
			PasswdFrom: ptrUnlessZero(PasswdSource{Secret: SecretPasswdSource(u.PasswdFrom.Secret)})})
	}
	return out
}

func usersDownFor(in []bootstrapv1.User, _ []User) []User { return usersDown(in) }

func diskSetupUp(in *DiskSetup) bootstrapv1.DiskSetup {
	var out bootstrapv1.DiskSetup
	if in == nil {
		return out
	}
	for _, p := range in.Partitions {
		partition := bootstrapv1.Partition{Device: p.Device, Overwrite: conversion.Copy(p.Overwrite), TableType: deref(p.TableType),
			DiskLayout: slices.Clone(p.DiskLayout)}
		// v1beta2 holds exactly one of layout and diskLayout; v1beta1 always has layout (a
		// false one means "leave the device as it is") and lets diskLayout override it.
		if len(p.DiskLayout) == 0 {
			partition.Layout = ptr.To(p.Layout)
		}
		out.Partitions = append(out.Partitions, partition)
	}
	for _, f := range in.Filesystems {
		out.Filesystems = append(out.Filesystems, bootstrapv1.Filesystem{Device: f.Device, Filesystem: f.Filesystem, Label: f.Label,
			Partition: deref(f.Partition), Overwrite: conversion.Copy(f.Overwrite), ReplaceFS: deref(f.ReplaceFS), ExtraOpts: stringsCopy(f.ExtraOpts)})
	}
	return out
}

func diskSetupDown(in *bootstrapv1.DiskSetup) DiskSetup {
	var out DiskSetup
	for _, p := range in.Partitions {
		out.Partitions = append(out.Partitions, Partition{Device: p.Device, Layout: deref(p.Layout), Overwrite: p.Overwrite,
			TableType: conversion.NonZero(p.TableType), DiskLayout: p.DiskLayout})
	}
	for _, f := range in.Filesystems {
		out.Filesystems = append(out.Filesystems, Filesystem{Device: f.Device, Filesystem: f.Filesystem, Label: f.Label,
			Partition: conversion.NonZero(f.Partition), Overwrite: f.Overwrite, ReplaceFS: conversion.NonZero(f.ReplaceFS), ExtraOpts: f.ExtraOpts})
	}
	return out
}

func diskSetupDownFor(in bootstrapv1.DiskSetup, _ DiskSetup) DiskSetup { return diskSetupDown(&in) }

func ntpUp(in *NTP) bootstrapv1.NTP {
	if in == nil {
		return bootstrapv1.NTP{}
	}
	return bootstrapv1.NTP{Servers: stringsCopy(in.Servers), Enabled: conversion.Copy(in.Enabled)}
}

func mountsUp(in []MountPoints) []bootstrapv1.MountPoints {
	var out []bootstrapv1.MountPoints
	for _, m := range in {
		out = append(out, bootstrapv1.MountPoints(stringsCopy(m)))
	}
	return out
}

func mountsDown(in []bootstrapv1.MountPoints) []MountPoints {
	var out []MountPoints
	for _, m := range in {
		out = append(out, MountPoints(m))
	}
	return out
}
