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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/contracts/conversion"
)

// initUp maps a v1beta1 InitConfiguration; its timeouts are set by KubeadmConfigSpecUp.
func initUp(in *InitConfiguration) bootstrapv1.InitConfiguration {
	out := bootstrapv1.InitConfiguration{
		NodeRegistration: nodeRegistrationUp(&in.NodeRegistration),
		LocalAPIEndpoint: bootstrapv1.APIEndpoint(in.LocalAPIEndpoint),
		SkipPhases:       stringsCopy(in.SkipPhases),
		Patches:          deref(in.Patches),
	}
	for _, t := range in.BootstrapTokens {
		out.BootstrapTokens = append(out.BootstrapTokens, bootstrapv1.BootstrapToken{
			Token: t.Token, Description: t.Description, TTLSeconds: conversion.DurationToSeconds(t.TTL),
			Expires: conversion.TimeFromPtr(t.Expires), Usages: stringsCopy(t.Usages), Groups: stringsCopy(t.Groups),
		})
	}
	return out
}

func initDown(in *bootstrapv1.InitConfiguration, stored *InitConfiguration) *InitConfiguration {
	if stored == nil {
		stored = &InitConfiguration{}
	}
	out := InitConfiguration{
		TypeMeta:         stored.TypeMeta,
		NodeRegistration: nodeRegistrationDown(&in.NodeRegistration),
		LocalAPIEndpoint: APIEndpoint(in.LocalAPIEndpoint),
		SkipPhases:       in.SkipPhases,
		Patches:          ptrUnlessZero(in.Patches),
	}
	for i, t := range in.BootstrapTokens {
		var storedTTL *metav1.Duration
		if i < len(stored.BootstrapTokens) {
			storedTTL = stored.BootstrapTokens[i].TTL
		}
		out.BootstrapTokens = append(out.BootstrapTokens, BootstrapToken{
			Token: t.Token, Description: t.Description, TTL: conversion.SecondsToDuration(t.TTLSeconds, storedTTL),
			Expires: conversion.TimeToPtr(t.Expires), Usages: t.Usages, Groups: t.Groups,
		})
	}
	return ptrUnlessZero(out)
}

func initDownFor(in bootstrapv1.InitConfiguration, sent InitConfiguration) InitConfiguration {
	return deref(initDown(&in, &sent))
}

// joinUp maps a v1beta1 JoinConfiguration; its other timeouts are set by KubeadmConfigSpecUp.
func joinUp(in *JoinConfiguration) bootstrapv1.JoinConfiguration {
	out := bootstrapv1.JoinConfiguration{
		NodeRegistration: nodeRegistrationUp(&in.NodeRegistration),
		CACertPath:       in.CACertPath,
		Discovery:        discoveryUp(&in.Discovery),
		SkipPhases:       stringsCopy(in.SkipPhases),
		Patches:          deref(in.Patches),
		Timeouts:         bootstrapv1.Timeouts{TLSBootstrapSeconds: conversion.DurationToSeconds(in.Discovery.Timeout)},
	}
	if in.ControlPlane != nil {
		out.ControlPlane = &bootstrapv1.JoinControlPlane{LocalAPIEndpoint: bootstrapv1.APIEndpoint(in.ControlPlane.LocalAPIEndpoint)}
	}
	return out
}

func joinDown(in *bootstrapv1.JoinConfiguration, stored *JoinConfiguration) *JoinConfiguration {
	if stored == nil {
		stored = &JoinConfiguration{}
	}
	out := JoinConfiguration{
		TypeMeta:         stored.TypeMeta,
		NodeRegistration: nodeRegistrationDown(&in.NodeRegistration),
		CACertPath:       in.CACertPath,
		Discovery:        discoveryDown(&in.Discovery),
		SkipPhases:       in.SkipPhases,
		Patches:          ptrUnlessZero(in.Patches),
	}
	out.Discovery.Timeout = conversion.SecondsToDuration(in.Timeouts.TLSBootstrapSeconds, stored.Discovery.Timeout)
	if in.ControlPlane != nil {
		out.ControlPlane = &JoinControlPlane{LocalAPIEndpoint: APIEndpoint(in.ControlPlane.LocalAPIEndpoint)}
	}
	return ptrUnlessZero(out)
}

func joinDownFor(in bootstrapv1.JoinConfiguration, sent JoinConfiguration) JoinConfiguration {
	return deref(joinDown(&in, &sent))
}

func nodeRegistrationUp(in *NodeRegistrationOptions) bootstrapv1.NodeRegistrationOptions {
	out := bootstrapv1.NodeRegistrationOptions{
		Name: in.Name, CRISocket: in.CRISocket, KubeletExtraArgs: argsUp(in.KubeletExtraArgs),
		IgnorePreflightErrors: stringsCopy(in.IgnorePreflightErrors), ImagePullPolicy: corev1.PullPolicy(in.ImagePullPolicy),
		ImagePullSerial: conversion.Copy(in.ImagePullSerial),
	}
	// An empty list (no taints at all) differs from none given (kubeadm's default taint).
	if in.Taints != nil {
		taints := append([]corev1.Taint{}, in.Taints...)
		out.Taints = &taints
	}
	return out
}

func nodeRegistrationDown(in *bootstrapv1.NodeRegistrationOptions) NodeRegistrationOptions {
	out := NodeRegistrationOptions{
		Name: in.Name, CRISocket: in.CRISocket, KubeletExtraArgs: argsDown(in.KubeletExtraArgs),
		IgnorePreflightErrors: in.IgnorePreflightErrors, ImagePullPolicy: string(in.ImagePullPolicy), ImagePullSerial: in.ImagePullSerial,
	}
	if in.Taints != nil {
		out.Taints = append([]corev1.Taint{}, (*in.Taints)...)
	}
	return out
}

func discoveryUp(in *Discovery) bootstrapv1.Discovery {
	out := bootstrapv1.Discovery{TLSBootstrapToken: in.TLSBootstrapToken}
	if t := in.BootstrapToken; t != nil {
		out.BootstrapToken = bootstrapv1.BootstrapTokenDiscovery{Token: t.Token, APIServerEndpoint: t.APIServerEndpoint,
			CACertHashes: stringsCopy(t.CACertHashes), UnsafeSkipCAVerification: conversion.BoolIntent(t.UnsafeSkipCAVerification, nil)}
	}
	if f := in.File; f != nil {
		out.File.KubeConfigPath = f.KubeConfigPath
		if k := f.KubeConfig; k != nil {
			if c := k.Cluster; c != nil {
				out.File.KubeConfig.Cluster = bootstrapv1.KubeConfigCluster{Server: c.Server, TLSServerName: c.TLSServerName,
					InsecureSkipTLSVerify: conversion.BoolIntent(c.InsecureSkipTLSVerify, nil), CertificateAuthorityData: c.CertificateAuthorityData, ProxyURL: c.ProxyURL}
			}
			out.File.KubeConfig.User.AuthProvider = deref(k.User.AuthProvider)
			if e := k.User.Exec; e != nil {
				out.File.KubeConfig.User.Exec = bootstrapv1.KubeConfigAuthExec{Command: e.Command, Args: e.Args, Env: e.Env,
					APIVersion: e.APIVersion, ProvideClusterInfo: conversion.BoolIntent(e.ProvideClusterInfo, nil)}
			}
		}
	}
	return out
}

func discoveryDown(in *bootstrapv1.Discovery) Discovery {
	t, f := &in.BootstrapToken, &in.File
	out := Discovery{
		TLSBootstrapToken: in.TLSBootstrapToken,
		BootstrapToken: ptrUnlessZero(BootstrapTokenDiscovery{Token: t.Token, APIServerEndpoint: t.APIServerEndpoint,
			CACertHashes: t.CACertHashes, UnsafeSkipCAVerification: deref(t.UnsafeSkipCAVerification)}),
	}
	k := &f.KubeConfig
	kc := FileDiscoveryKubeConfig{
		Cluster: ptrUnlessZero(KubeConfigCluster{Server: k.Cluster.Server, TLSServerName: k.Cluster.TLSServerName,
			InsecureSkipTLSVerify: deref(k.Cluster.InsecureSkipTLSVerify), CertificateAuthorityData: k.Cluster.CertificateAuthorityData, ProxyURL: k.Cluster.ProxyURL}),
		User: KubeConfigUser{
			AuthProvider: ptrUnlessZero(k.User.AuthProvider),
			Exec: ptrUnlessZero(KubeConfigAuthExec{Command: k.User.Exec.Command, Args: k.User.Exec.Args, Env: k.User.Exec.Env,
				APIVersion: k.User.Exec.APIVersion, ProvideClusterInfo: deref(k.User.Exec.ProvideClusterInfo)}),
		},
	}
	out.File = ptrUnlessZero(FileDiscovery{KubeConfigPath: f.KubeConfigPath, KubeConfig: ptrUnlessZero(kc)})
	return out
}
