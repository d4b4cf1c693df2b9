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

package kubeadm

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Cluster holds the kubeadm settings that come from the Cluster and the Machine rather than from
// the KubeadmConfig, so that every Machine of a Cluster agrees on them.
type Cluster struct {
	// Name is the Cluster's name, written as clusterName.
	Name string
	// ControlPlaneEndpoint is the Cluster's spec.controlPlaneEndpoint as "host:port". It becomes
	// controlPlaneEndpoint and the default discovery endpoint of joining nodes.
	ControlPlaneEndpoint string
	// KubernetesVersion is the Machine's spec.version, e.g. v1.37.2. Required for init: without
	// it kubeadm would try to look the latest version up over the network.
	KubernetesVersion string
	// PodSubnets and ServiceSubnets are the Cluster's clusterNetwork pods/services cidrBlocks;
	// two ranges mean dual-stack.
	PodSubnets     []string
	ServiceSubnets []string
	// ServiceDomain is the Cluster's clusterNetwork.serviceDomain, written as dnsDomain.
	ServiceDomain string
}

// Role says how a joining node joins.
type Role string

const (
	// ControlPlane joins the node as an additional control plane node (etcd member included).
	ControlPlane Role = "control-plane"
	// Worker joins the node as a worker.
	Worker Role = "worker"
)

// ErrIncomplete is wrapped by the errors of Init and Join when a value kubeadm cannot run without
// is missing; the controller should wait for it rather than render a file that would fail on the node.
var ErrIncomplete = errors.New("incomplete kubeadm configuration")

// NewClusterConfiguration returns the ClusterConfiguration for spec in cluster c. A
// controlPlaneEndpoint set in spec wins over the Cluster's, as upstream.
func NewClusterConfiguration(spec bootstrapv1.ClusterConfiguration, c Cluster) ClusterConfiguration {
	endpoint := spec.ControlPlaneEndpoint
	if endpoint == "" {
		endpoint = c.ControlPlaneEndpoint
	}
	return ClusterConfiguration{
		TypeMeta: metav1.TypeMeta{APIVersion: APIVersion, Kind: ClusterConfigurationKind},
		Etcd:     etcd(spec.Etcd),
		Networking: Networking{
			ServiceSubnet: strings.Join(c.ServiceSubnets, ","),
			PodSubnet:     strings.Join(c.PodSubnets, ","),
			DNSDomain:     c.ServiceDomain,
		},
		KubernetesVersion:    c.KubernetesVersion,
		ControlPlaneEndpoint: endpoint,
		APIServer: APIServer{
			ControlPlaneComponent: component(spec.APIServer.ExtraArgs, spec.APIServer.ExtraVolumes, spec.APIServer.ExtraEnvs),
			CertSANs:              slices.Clone(spec.APIServer.CertSANs),
		},
		ControllerManager:           component(spec.ControllerManager.ExtraArgs, spec.ControllerManager.ExtraVolumes, spec.ControllerManager.ExtraEnvs),
		Scheduler:                   component(spec.Scheduler.ExtraArgs, spec.Scheduler.ExtraVolumes, spec.Scheduler.ExtraEnvs),
		DNS:                         DNS{ImageRepository: spec.DNS.ImageRepository, ImageTag: spec.DNS.ImageTag},
		CertificatesDir:             spec.CertificatesDir,
		ImageRepository:             spec.ImageRepository,
		FeatureGates:                maps.Clone(spec.FeatureGates),
		ClusterName:                 c.Name,
		CertificateValidityPeriod:   days(spec.CertificateValidityPeriodDays),
		CACertificateValidityPeriod: days(spec.CACertificateValidityPeriodDays),
		EncryptionAlgorithm:         string(spec.EncryptionAlgorithm),
	}
}

// etcd returns the local member's settings, or the external cluster when one is set (the API
// forbids both).
func etcd(spec bootstrapv1.Etcd) Etcd {
	if ext := spec.External; ext.IsDefined() {
		return Etcd{External: &ExternalEtcd{
			Endpoints: slices.Clone(ext.Endpoints), CAFile: ext.CAFile, CertFile: ext.CertFile, KeyFile: ext.KeyFile,
		}}
	}
	l := spec.Local
	return Etcd{Local: LocalEtcd{
		ImageRepository: l.ImageRepository,
		ImageTag:        l.ImageTag,
		DataDir:         l.DataDir,
		ExtraArgs:       args(l.ExtraArgs),
		ExtraEnvs:       envVars(l.ExtraEnvs),
		ServerCertSANs:  slices.Clone(l.ServerCertSANs),
		PeerCertSANs:    slices.Clone(l.PeerCertSANs),
	}}
}

func component(extraArgs []bootstrapv1.Arg, volumes []bootstrapv1.HostPathMount, envs *[]bootstrapv1.EnvVar) ControlPlaneComponent {
	out := ControlPlaneComponent{ExtraArgs: args(extraArgs), ExtraEnvs: envVars(envs)}
	for _, v := range volumes {
		out.ExtraVolumes = append(out.ExtraVolumes, HostPathMount{
			Name: v.Name, HostPath: v.HostPath, MountPath: v.MountPath,
			ReadOnly: v.ReadOnly != nil && *v.ReadOnly, PathType: v.PathType,
		})
	}
	return out
}

func envVars(in *[]bootstrapv1.EnvVar) []EnvVar {
	if in == nil {
		return nil
	}
	out := make([]EnvVar, 0, len(*in))
	for _, e := range *in {
		out = append(out, EnvVar{EnvVar: *e.EnvVar.DeepCopy()})
	}
	return out
}

// NewInitConfiguration returns the InitConfiguration for spec.
func NewInitConfiguration(spec bootstrapv1.InitConfiguration) InitConfiguration {
	init := InitConfiguration{
		TypeMeta:         metav1.TypeMeta{APIVersion: APIVersion, Kind: InitConfigurationKind},
		NodeRegistration: nodeRegistration(spec.NodeRegistration),
		LocalAPIEndpoint: APIEndpoint(spec.LocalAPIEndpoint),
		SkipPhases:       slices.Clone(spec.SkipPhases),
		Patches:          Patches(spec.Patches),
		Timeouts:         timeouts(spec.Timeouts),
	}
	for _, t := range spec.BootstrapTokens {
		init.BootstrapTokens = append(init.BootstrapTokens, BootstrapToken{
			Token:       t.Token,
			Description: t.Description,
			TTL:         seconds(t.TTLSeconds),
			Usages:      slices.Clone(t.Usages),
			Groups:      slices.Clone(t.Groups),
		})
	}
	return init
}

// NewJoinConfiguration returns the JoinConfiguration for spec in cluster c, joining as role.
//
// A control plane node always gets a controlPlane block (empty if spec has none), which is what
// tells kubeadm to add an API server and an etcd member. A worker gets the
// node.cluster.x-k8s.io/uninitialized taint, so that no workload lands on it before the Machine
// controller has synced the Machine's labels to the Node and removed the taint. An unset
// discovery endpoint defaults to the Cluster's control plane endpoint.
func NewJoinConfiguration(spec bootstrapv1.JoinConfiguration, c Cluster, role Role) (JoinConfiguration, error) {
	join := JoinConfiguration{
		TypeMeta:         metav1.TypeMeta{APIVersion: APIVersion, Kind: JoinConfigurationKind},
		NodeRegistration: nodeRegistration(spec.NodeRegistration),
		CACertPath:       spec.CACertPath,
		SkipPhases:       slices.Clone(spec.SkipPhases),
		Patches:          Patches(spec.Patches),
		Timeouts:         timeouts(spec.Timeouts),
	}
	switch role {
	case ControlPlane:
		join.ControlPlane = &JoinControlPlane{}
		if spec.ControlPlane != nil {
			join.ControlPlane.LocalAPIEndpoint = APIEndpoint(spec.ControlPlane.LocalAPIEndpoint)
		}
	case Worker:
		if spec.ControlPlane != nil {
			return JoinConfiguration{}, fmt.Errorf("joinConfiguration.controlPlane is set but the Machine joins as a worker: " +
				"remove it from the worker's KubeadmConfig, or make the Machine part of the control plane")
		}
		join.NodeRegistration.Taints = withTaint(join.NodeRegistration.Taints, clusterv1.NodeUninitializedTaint)
	default:
		return JoinConfiguration{}, fmt.Errorf("unknown join role %q: want %q or %q", role, ControlPlane, Worker)
	}

	discovery, err := newDiscovery(spec.Discovery, c)
	if err != nil {
		return JoinConfiguration{}, err
	}
	join.Discovery = discovery
	return join, nil
}

// newDiscovery returns the discovery of a joining node: the kubeconfig file when spec names one
// (respected as is, as upstream), else the bootstrap token, whose endpoint defaults to the
// Cluster's control plane endpoint.
func newDiscovery(spec bootstrapv1.Discovery, c Cluster) (Discovery, error) {
	if spec.File.KubeConfigPath != "" {
		return Discovery{File: &FileDiscovery{KubeConfigPath: spec.File.KubeConfigPath}, TLSBootstrapToken: spec.TLSBootstrapToken}, nil
	}
	bt := spec.BootstrapToken
	discovery := &BootstrapTokenDiscovery{
		Token:                    bt.Token,
		APIServerEndpoint:        bt.APIServerEndpoint,
		CACertHashes:             slices.Clone(bt.CACertHashes),
		UnsafeSkipCAVerification: bt.UnsafeSkipCAVerification != nil && *bt.UnsafeSkipCAVerification,
	}
	if discovery.APIServerEndpoint == "" {
		discovery.APIServerEndpoint = c.ControlPlaneEndpoint
	}
	var missing []string
	if discovery.Token == "" {
		missing = append(missing, "discovery.bootstrapToken.token")
	}
	if discovery.APIServerEndpoint == "" {
		missing = append(missing, "discovery.bootstrapToken.apiServerEndpoint (or the Cluster's controlPlaneEndpoint)")
	}
	if len(discovery.CACertHashes) == 0 && !discovery.UnsafeSkipCAVerification {
		missing = append(missing, "discovery.bootstrapToken.caCertHashes (or unsafeSkipCAVerification: true)")
	}
	if len(missing) > 0 {
		return Discovery{}, fmt.Errorf("%w: kubeadm join needs %s", ErrIncomplete, strings.Join(missing, ", "))
	}
	return Discovery{BootstrapToken: discovery, TLSBootstrapToken: spec.TLSBootstrapToken}, nil
}

func args(in []bootstrapv1.Arg) []Arg {
	if len(in) == 0 {
		return nil
	}
	out := make([]Arg, 0, len(in))
	for _, a := range in {
		out = append(out, Arg{Name: a.Name, Value: ptrValue(a.Value)})
	}
	return out
}

func nodeRegistration(in bootstrapv1.NodeRegistrationOptions) NodeRegistrationOptions {
	out := NodeRegistrationOptions{
		Name:                  in.Name,
		CRISocket:             in.CRISocket,
		KubeletExtraArgs:      args(in.KubeletExtraArgs),
		IgnorePreflightErrors: slices.Clone(in.IgnorePreflightErrors),
		ImagePullPolicy:       in.ImagePullPolicy,
		ImagePullSerial:       in.ImagePullSerial,
	}
	if in.Taints != nil {
		// Keep an empty list empty rather than nil: for kubeadm it means "no taints at all".
		taints := make([]corev1.Taint, 0, len(*in.Taints))
		for _, t := range *in.Taints {
			taints = append(taints, *t.DeepCopy())
		}
		out.Taints = &taints
	}
	return out
}

// withTaint returns taints plus t, unless a taint with t's key and effect is already there.
func withTaint(taints *[]corev1.Taint, t corev1.Taint) *[]corev1.Taint {
	var out []corev1.Taint
	if taints != nil {
		if slices.ContainsFunc(*taints, func(have corev1.Taint) bool { return have.MatchTaint(&t) }) {
			return taints
		}
		out = slices.Clone(*taints)
	}
	out = append(out, t)
	return &out
}

func timeouts(in bootstrapv1.Timeouts) Timeouts {
	return Timeouts{
		ControlPlaneComponentHealthCheck: seconds(in.ControlPlaneComponentHealthCheckSeconds),
		KubeletHealthCheck:               seconds(in.KubeletHealthCheckSeconds),
		KubernetesAPICall:                seconds(in.KubernetesAPICallSeconds),
		EtcdAPICall:                      seconds(in.EtcdAPICallSeconds),
		TLSBootstrap:                     seconds(in.TLSBootstrapSeconds),
		Discovery:                        seconds(in.DiscoverySeconds),
	}
}

func seconds(s *int32) *metav1.Duration {
	if s == nil {
		return nil
	}
	return &metav1.Duration{Duration: time.Duration(*s) * time.Second}
}

// days returns a duration of d days, nil for 0 (unset).
func days(d int32) *metav1.Duration {
	if d == 0 {
		return nil
	}
	return &metav1.Duration{Duration: time.Duration(d) * 24 * time.Hour}
}

func ptrValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
