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
	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/contracts/conversion"
)

// KubeadmConfigSpecUp converts a v1beta1 KubeadmConfigSpec (also KubeadmControlPlane's);
// restored is the v1beta2 spec recorded by the last down-conversion, zero when there was none.
func KubeadmConfigSpecUp(in *KubeadmConfigSpec, restored *bootstrapv1.KubeadmConfigSpec) bootstrapv1.KubeadmConfigSpec {
	cc, init, join := deref(in.ClusterConfiguration), deref(in.InitConfiguration), deref(in.JoinConfiguration)
	out := bootstrapv1.KubeadmConfigSpec{
		ClusterConfiguration: clusterConfigurationUp(&cc, &restored.ClusterConfiguration),
		InitConfiguration:    keep(init, restored.InitConfiguration, initDownFor, func() bootstrapv1.InitConfiguration { return initUp(&init) }),
		JoinConfiguration:    keep(join, restored.JoinConfiguration, joinDownFor, func() bootstrapv1.JoinConfiguration { return joinUp(&join) }),
		Files:                keep(in.Files, restored.Files, filesDownFor, func() []bootstrapv1.File { return filesUp(in.Files) }),
		DiskSetup:            keep(deref(in.DiskSetup), restored.DiskSetup, diskSetupDownFor, func() bootstrapv1.DiskSetup { return diskSetupUp(in.DiskSetup) }),
		Mounts:               mountsUp(in.Mounts),
		BootCommands:         stringsCopy(in.BootCommands),
		PreKubeadmCommands:   stringsCopy(in.PreKubeadmCommands),
		PostKubeadmCommands:  stringsCopy(in.PostKubeadmCommands),
		Users:                keep(in.Users, restored.Users, usersDownFor, func() []bootstrapv1.User { return usersUp(in.Users) }),
		NTP:                  ntpUp(in.NTP),
		Format:               in.Format,
		Verbosity:            conversion.Copy(in.Verbosity),
		Ignition:             keep(in.Ignition, restored.Ignition, ignitionDownFor, func() bootstrapv1.IgnitionSpec { return ignitionUp(in.Ignition) }),
	}
	// v1beta1 has two of the kubeadm timeouts: timeoutForControlPlane (for init and join alike)
	// and discovery.timeout; the others come from the annotation.
	out.InitConfiguration.Timeouts = restored.InitConfiguration.Timeouts
	out.JoinConfiguration.Timeouts = restored.JoinConfiguration.Timeouts
	if cp := conversion.DurationToSeconds(cc.APIServer.TimeoutForControlPlane); !equalPtr(cp, restored.InitConfiguration.Timeouts.ControlPlaneComponentHealthCheckSeconds) {
		out.InitConfiguration.Timeouts.ControlPlaneComponentHealthCheckSeconds = cp
		out.JoinConfiguration.Timeouts.ControlPlaneComponentHealthCheckSeconds = conversion.Copy(cp)
	}
	out.JoinConfiguration.Timeouts.TLSBootstrapSeconds = conversion.DurationToSeconds(join.Discovery.Timeout)
	return *out.DeepCopy()
}

// KubeadmConfigSpecDown converts a v1beta2 KubeadmConfigSpec; stored is the v1beta1 spec
// recorded by the last up-conversion (nil when there was none), whose v1beta1-only fields and
// durations it keeps.
func KubeadmConfigSpecDown(in *bootstrapv1.KubeadmConfigSpec, stored *KubeadmConfigSpec) KubeadmConfigSpec {
	if stored == nil {
		stored = &KubeadmConfigSpec{}
	}
	in = in.DeepCopy()
	return KubeadmConfigSpec{
		ClusterConfiguration:     clusterConfigurationDown(&in.ClusterConfiguration, in.InitConfiguration.Timeouts.ControlPlaneComponentHealthCheckSeconds, stored.ClusterConfiguration),
		InitConfiguration:        initDown(&in.InitConfiguration, stored.InitConfiguration),
		JoinConfiguration:        joinDown(&in.JoinConfiguration, stored.JoinConfiguration),
		Files:                    filesDown(in.Files),
		DiskSetup:                ptrUnlessZero(diskSetupDown(&in.DiskSetup)),
		Mounts:                   mountsDown(in.Mounts),
		BootCommands:             in.BootCommands,
		PreKubeadmCommands:       in.PreKubeadmCommands,
		PostKubeadmCommands:      in.PostKubeadmCommands,
		Users:                    usersDown(in.Users),
		NTP:                      ptrUnlessZero(NTP(in.NTP)),
		Format:                   in.Format,
		Verbosity:                in.Verbosity,
		UseExperimentalRetryJoin: stored.UseExperimentalRetryJoin,
		Ignition:                 ignitionDown(&in.Ignition, stored.Ignition),
	}
}

func ignitionUp(in *IgnitionSpec) bootstrapv1.IgnitionSpec {
	if in == nil || in.ContainerLinuxConfig == nil {
		return bootstrapv1.IgnitionSpec{}
	}
	clc := in.ContainerLinuxConfig
	return bootstrapv1.IgnitionSpec{ContainerLinuxConfig: bootstrapv1.ContainerLinuxConfig{
		AdditionalConfig: clc.AdditionalConfig, Strict: conversion.BoolIntent(clc.Strict, nil)}}
}

// ignitionDown converts ignition; stored, the v1beta1 ignition recorded by the last
// up-conversion, is kept when it converts up as in is (an empty containerLinuxConfig: {} that
// v1beta2 has no spelling for).
func ignitionDown(in *bootstrapv1.IgnitionSpec, stored *IgnitionSpec) *IgnitionSpec {
	if stored != nil && readsAsSame(ignitionUp(stored), *in) {
		return stored.DeepCopy()
	}
	clc := in.ContainerLinuxConfig
	if !clc.IsDefined() {
		return nil
	}
	return &IgnitionSpec{ContainerLinuxConfig: &ContainerLinuxConfig{AdditionalConfig: clc.AdditionalConfig, Strict: deref(clc.Strict)}}
}

func ignitionDownFor(in bootstrapv1.IgnitionSpec, spoke *IgnitionSpec) *IgnitionSpec {
	return ignitionDown(&in, spoke)
}

func clusterConfigurationUp(in *ClusterConfiguration, restored *bootstrapv1.ClusterConfiguration) bootstrapv1.ClusterConfiguration {
	apiServer := in.APIServer
	apiServer.TimeoutForControlPlane = nil // an init/join timeout in v1beta2
	return bootstrapv1.ClusterConfiguration{
		Etcd:                 keep(in.Etcd, restored.Etcd, etcdDownFor, func() bootstrapv1.Etcd { return etcdUp(&in.Etcd) }),
		ControlPlaneEndpoint: in.ControlPlaneEndpoint,
		APIServer: keep(apiServer, restored.APIServer, apiServerDownFor, func() bootstrapv1.APIServer {
			return bootstrapv1.APIServer{ExtraArgs: argsUp(apiServer.ExtraArgs), ExtraVolumes: volumesUp(apiServer.ExtraVolumes),
				ExtraEnvs: envsUp(apiServer.ExtraEnvs), CertSANs: stringsCopy(apiServer.CertSANs)}
		}),
		ControllerManager: keep(in.ControllerManager, restored.ControllerManager, controllerManagerDownFor, func() bootstrapv1.ControllerManager {
			c := componentUp(&in.ControllerManager)
			return bootstrapv1.ControllerManager{ExtraArgs: c.ExtraArgs, ExtraVolumes: c.ExtraVolumes, ExtraEnvs: c.ExtraEnvs}
		}),
		Scheduler: keep(in.Scheduler, restored.Scheduler, schedulerDownFor, func() bootstrapv1.Scheduler {
			c := componentUp(&in.Scheduler)
			return bootstrapv1.Scheduler{ExtraArgs: c.ExtraArgs, ExtraVolumes: c.ExtraVolumes, ExtraEnvs: c.ExtraEnvs}
		}),
		DNS:                             bootstrapv1.DNS{ImageRepository: in.DNS.ImageRepository, ImageTag: in.DNS.ImageTag},
		CertificatesDir:                 in.CertificatesDir,
		ImageRepository:                 in.ImageRepository,
		FeatureGates:                    in.FeatureGates,
		CertificateValidityPeriodDays:   in.CertificateValidityPeriodDays,
		CACertificateValidityPeriodDays: in.CACertificateValidityPeriodDays,
		EncryptionAlgorithm:             in.EncryptionAlgorithm,
	}
}

func clusterConfigurationDown(in *bootstrapv1.ClusterConfiguration, controlPlaneTimeout *int32, stored *ClusterConfiguration) *ClusterConfiguration {
	if stored == nil {
		stored = &ClusterConfiguration{}
	}
	out := ClusterConfiguration{
		TypeMeta:             stored.TypeMeta,
		Etcd:                 etcdDown(&in.Etcd),
		Networking:           stored.Networking,
		KubernetesVersion:    stored.KubernetesVersion,
		ControlPlaneEndpoint: in.ControlPlaneEndpoint,
		APIServer: APIServer{
			ControlPlaneComponent:  componentDown(in.APIServer.ExtraArgs, in.APIServer.ExtraVolumes, in.APIServer.ExtraEnvs),
			CertSANs:               in.APIServer.CertSANs,
			TimeoutForControlPlane: conversion.SecondsToDuration(controlPlaneTimeout, stored.APIServer.TimeoutForControlPlane),
		},
		ControllerManager:               componentDown(in.ControllerManager.ExtraArgs, in.ControllerManager.ExtraVolumes, in.ControllerManager.ExtraEnvs),
		Scheduler:                       componentDown(in.Scheduler.ExtraArgs, in.Scheduler.ExtraVolumes, in.Scheduler.ExtraEnvs),
		DNS:                             DNS{ImageMeta: ImageMeta{ImageRepository: in.DNS.ImageRepository, ImageTag: in.DNS.ImageTag}},
		CertificatesDir:                 in.CertificatesDir,
		ImageRepository:                 in.ImageRepository,
		FeatureGates:                    in.FeatureGates,
		ClusterName:                     stored.ClusterName,
		CertificateValidityPeriodDays:   in.CertificateValidityPeriodDays,
		CACertificateValidityPeriodDays: in.CACertificateValidityPeriodDays,
		EncryptionAlgorithm:             in.EncryptionAlgorithm,
	}
	return ptrUnlessZero(out)
}

// The ...DownFor functions are the down-conversions keep compares with.

func apiServerDownFor(in bootstrapv1.APIServer, _ APIServer) APIServer {
	return APIServer{ControlPlaneComponent: componentDown(in.ExtraArgs, in.ExtraVolumes, in.ExtraEnvs), CertSANs: in.CertSANs}
}

func controllerManagerDownFor(in bootstrapv1.ControllerManager, _ ControlPlaneComponent) ControlPlaneComponent {
	return componentDown(in.ExtraArgs, in.ExtraVolumes, in.ExtraEnvs)
}

func schedulerDownFor(in bootstrapv1.Scheduler, _ ControlPlaneComponent) ControlPlaneComponent {
	return componentDown(in.ExtraArgs, in.ExtraVolumes, in.ExtraEnvs)
}

func etcdDownFor(in bootstrapv1.Etcd, _ Etcd) Etcd { return etcdDown(&in) }

func componentUp(in *ControlPlaneComponent) bootstrapv1.ControllerManager {
	return bootstrapv1.ControllerManager{ExtraArgs: argsUp(in.ExtraArgs), ExtraVolumes: volumesUp(in.ExtraVolumes), ExtraEnvs: envsUp(in.ExtraEnvs)}
}

func componentDown(args []bootstrapv1.Arg, volumes []bootstrapv1.HostPathMount, envs *[]bootstrapv1.EnvVar) ControlPlaneComponent {
	return ControlPlaneComponent{ExtraArgs: argsDown(args), ExtraVolumes: volumesDown(volumes), ExtraEnvs: envsDown(envs)}
}

func volumesUp(in []HostPathMount) []bootstrapv1.HostPathMount {
	var out []bootstrapv1.HostPathMount
	for _, v := range in {
		out = append(out, bootstrapv1.HostPathMount{Name: v.Name, HostPath: v.HostPath, MountPath: v.MountPath,
			ReadOnly: conversion.BoolIntent(v.ReadOnly, nil), PathType: v.PathType})
	}
	return out
}

func volumesDown(in []bootstrapv1.HostPathMount) []HostPathMount {
	var out []HostPathMount
	for _, v := range in {
		out = append(out, HostPathMount{Name: v.Name, HostPath: v.HostPath, MountPath: v.MountPath, ReadOnly: deref(v.ReadOnly), PathType: v.PathType})
	}
	return out
}

func etcdUp(in *Etcd) bootstrapv1.Etcd {
	var out bootstrapv1.Etcd
	if l := in.Local; l != nil {
		out.Local = bootstrapv1.LocalEtcd{ImageRepository: l.ImageRepository, ImageTag: l.ImageTag, DataDir: l.DataDir,
			ExtraArgs: argsUp(l.ExtraArgs), ExtraEnvs: envsUp(l.ExtraEnvs), ServerCertSANs: stringsCopy(l.ServerCertSANs), PeerCertSANs: stringsCopy(l.PeerCertSANs)}
	}
	if in.External != nil {
		out.External = *in.External.DeepCopy()
	}
	return out
}

func etcdDown(in *bootstrapv1.Etcd) Etcd {
	l := in.Local
	return Etcd{
		Local: ptrUnlessZero(LocalEtcd{ImageMeta: ImageMeta{ImageRepository: l.ImageRepository, ImageTag: l.ImageTag}, DataDir: l.DataDir,
			ExtraArgs: argsDown(l.ExtraArgs), ExtraEnvs: envsDown(l.ExtraEnvs), ServerCertSANs: l.ServerCertSANs, PeerCertSANs: l.PeerCertSANs}),
		External: ptrUnlessZero(*in.External.DeepCopy()),
	}
}

func equalPtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
