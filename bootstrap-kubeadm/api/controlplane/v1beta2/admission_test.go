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

package v1beta2_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
)

const (
	evenReplicasMessage = "replicas must be odd (1, 3, 5...) with stacked etcd: each control plane Machine runs an etcd member, and an even member count tolerates no more failures than one member fewer; use the next odd number (even numbers are allowed with clusterConfiguration.etcd.external)"
	maxSurgeMessage     = "maxSurge must be the number 0 or 1: a control plane is replaced one Machine at a time, either creating the new Machine first (1, the default) or deleting the old one first (0)"

	oneReplicaMaxSurgeZeroMessage = "maxSurge 0 needs at least 3 replicas: with maxSurge 0 a Machine is deleted before its replacement exists, and with a single replica that leaves no control plane to join, so an upgrade could never proceed; set maxSurge to 1, or replicas to 3 or more"
	certificatesDirMessage        = "certificatesDir cannot be changed"
	etcdSwitchMessage             = "etcd cannot switch between local and external"
)

// TestAdmission_RejectsInvalidObjects sends one invalid object per admission rule to the real
// apiserver and checks that it is refused with the rule's own message, so that users get an
// actionable error without any webhook running.
func TestAdmission_RejectsInvalidObjects(t *testing.T) {
	tests := []struct {
		name string
		obj  func(t *testing.T, ns string) client.Object
		// wantMessages must all appear in the apiserver's error.
		wantMessages []string
	}{
		{
			name: "ReplicasEven",
			obj: func(_ *testing.T, ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Replicas = ptr.To[int32](2)
				return kcp
			},
			wantMessages: []string{"spec.replicas: Invalid value: " + evenReplicasMessage},
		},
		{
			name: "ReplicasZero",
			obj: func(_ *testing.T, ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Replicas = ptr.To[int32](0)
				return kcp
			},
			wantMessages: []string{"spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1"},
		},
		{
			name: "MaxSurgeTwo",
			obj: func(_ *testing.T, ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Rollout.Strategy = rollingUpdate(intstr.FromInt32(2))
				return kcp
			},
			wantMessages: []string{"spec.rollout.strategy.rollingUpdate.maxSurge: Invalid value: ", maxSurgeMessage},
		},
		{
			// A percentage makes no sense for a control plane replaced one Machine at a time.
			name: "MaxSurgeString",
			obj: func(_ *testing.T, ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Rollout.Strategy = rollingUpdate(intstr.FromString("100%"))
				return kcp
			},
			wantMessages: []string{"spec.rollout.strategy.rollingUpdate.maxSurge", maxSurgeMessage},
		},
		{
			name: "OneReplicaWithMaxSurgeZero",
			obj: func(_ *testing.T, ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Replicas = ptr.To[int32](1)
				kcp.Spec.Rollout.Strategy = rollingUpdate(intstr.FromInt32(0))
				return kcp
			},
			wantMessages: []string{"spec.rollout.strategy.rollingUpdate.maxSurge: Invalid value", oneReplicaMaxSurgeZeroMessage},
		},
		{
			// An empty object says what it may hold instead of "should have at least 1 properties".
			name: "RemediationEmpty",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newKubeadmControlPlane(ns), map[string]any{}, "spec", "remediation")
			},
			wantMessages: []string{`spec.remediation: Invalid value: must set at least one of maxRetry, retryPeriodSeconds or minHealthyPeriodSeconds, or be left out instead of written as an empty object ({})`},
		},
		{
			name: "CertificatesExpiryDaysBelowSeven",
			obj: func(_ *testing.T, ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Rollout.Before.CertificatesExpiryDays = 3
				return kcp
			},
			wantMessages: []string{"spec.rollout.before.certificatesExpiryDays: Invalid value: 3"},
		},
		{
			name: "MachineTemplateLabelValueInvalid",
			obj: func(_ *testing.T, ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.MachineTemplate.ObjectMeta.Labels = map[string]string{"tier": "control plane"}
				return kcp
			},
			wantMessages: []string{`spec.machineTemplate.metadata.labels[tier]`, `"control plane" is not a valid label value`},
		},
		{
			name: "TemplateMaxSurgeTwo",
			obj: func(_ *testing.T, ns string) client.Object {
				kcpt := newKubeadmControlPlaneTemplate(ns)
				kcpt.Spec.Template.Spec.Rollout.Strategy = rollingUpdate(intstr.FromInt32(2))
				return kcpt
			},
			wantMessages: []string{"spec.template.spec.rollout.strategy.rollingUpdate.maxSurge", maxSurgeMessage},
		},
		{
			name: "RolloutStrategyUnknown",
			obj: func(_ *testing.T, ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Rollout.Strategy.Type = "OnDelete"
				return kcp
			},
			wantMessages: []string{`spec.rollout.strategy.type: Unsupported value: "OnDelete": supported values: "RollingUpdate"`},
		},
		{
			// "1.37.2" gets its "v" at admission (TestDefaulting_*); "1.37" is no version either way.
			name: "VersionWithoutLeadingVOrPatch",
			obj: func(_ *testing.T, ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Version = "1.37"
				return kcp
			},
			wantMessages: []string{`spec.version: Invalid value: "1.37": version "1.37" is not a Kubernetes version: write it as vMAJOR.MINOR.PATCH, e.g. v1.37.2`},
		},
		{
			name: "VersionWithoutPatch",
			obj: func(_ *testing.T, ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Version = "v1.37"
				return kcp
			},
			wantMessages: []string{`version "v1.37" is not a Kubernetes version`},
		},
		{
			name: "VersionMissing",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newKubeadmControlPlane(ns), nil, "spec", "version")
			},
			wantMessages: []string{"spec.version: Required value"},
		},
		{
			name: "InfrastructureRefMissing",
			obj: func(t *testing.T, ns string) client.Object {
				return env.WithField(t, newKubeadmControlPlane(ns), map[string]any{}, "spec", "machineTemplate", "spec")
			},
			wantMessages: []string{"spec.machineTemplate.spec.infrastructureRef: Required value"},
		},
		{
			// The embedded KubeadmConfigSpec carries its own rules into the control plane.
			name: "KubeadmConfigSpecFileWithContentAndContentFrom",
			obj: func(_ *testing.T, ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.KubeadmConfigSpec.Files = []bootstrapv1.File{{
					Path: "/etc/kubernetes/audit.yaml", Content: "rules: []",
					ContentFrom: bootstrapv1.FileSource{Secret: bootstrapv1.SecretFileSource{Name: "audit", Key: "policy"}},
				}}
				return kcp
			},
			wantMessages: []string{`spec.kubeadmConfigSpec.files[0]: Invalid value: file "/etc/kubernetes/audit.yaml" sets both content and contentFrom: a file takes its content from exactly one source; remove one of them`},
		},
		{
			name: "KubeadmConfigSpecFileEncodingUnknown",
			obj: func(_ *testing.T, ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.KubeadmConfigSpec.Files = []bootstrapv1.File{{Path: "/etc/a", Encoding: "zstd", Content: "x"}}
				return kcp
			},
			wantMessages: []string{`spec.kubeadmConfigSpec.files[0].encoding: Unsupported value: "zstd": supported values: "base64", "gzip", "gzip+base64"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.RequireInvalid(t, tt.obj(t, env.CreateNamespace(t, "admission")), tt.wantMessages...)
		})
	}
}

// TestAdmission_AcceptsValuesAtTheEdgeOfEachRule guards against rules that are stricter than
// intended: each object sits just inside a rule that TestAdmission_RejectsInvalidObjects exercises.
func TestAdmission_AcceptsValuesAtTheEdgeOfEachRule(t *testing.T) {
	tests := []struct {
		name string
		obj  func(ns string) client.Object
	}{
		{
			name: "ThreeReplicasAndMaxSurgeZero",
			obj: func(ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Rollout.Strategy = rollingUpdate(intstr.FromInt32(0))
				return kcp
			},
		},
		{
			name: "OneReplicaAndMaxSurgeOne",
			obj: func(ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Replicas = ptr.To[int32](1)
				return kcp
			},
		},
		{
			name: "CertificatesExpiryDaysSeven",
			obj: func(ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Rollout.Before.CertificatesExpiryDays = 7
				return kcp
			},
		},
		{
			name: "NinetyNineReplicas",
			obj: func(ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Replicas = ptr.To[int32](99)
				return kcp
			},
		},
		{
			name: "PreReleaseVersion",
			obj: func(ns string) client.Object {
				kcp := newKubeadmControlPlane(ns)
				kcp.Spec.Version = "v1.38.0-rc.1+build.5"
				return kcp
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := env.CreateNamespace(t, "admission-ok")
			require.NoError(t, env.Client.Create(context.Background(), tt.obj(ns)))
		})
	}
}

// TestScale_RejectsEvenReplicasThroughTheScaleSubresource checks that the odd-replicas rule also
// holds for `kubectl scale` and autoscalers, which write through the scale subresource.
func TestScale_RejectsEvenReplicasThroughTheScaleSubresource(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "scale")
	kcp := newKubeadmControlPlane(ns)
	require.NoError(t, env.Client.Create(ctx, kcp))

	scale := &autoscalingv1.Scale{}
	require.NoError(t, env.Client.SubResource("scale").Get(ctx, kcp, scale))
	require.Equal(t, int32(3), scale.Spec.Replicas)

	scale.Spec.Replicas = 4
	err := env.Client.SubResource("scale").Update(ctx, kcp, client.WithSubResourceBody(scale))
	require.Error(t, err, "the apiserver accepted an even replica count through the scale subresource")
	require.Contains(t, err.Error(), evenReplicasMessage)

	scale.Spec.Replicas = 5
	require.NoError(t, env.Client.SubResource("scale").Update(ctx, kcp, client.WithSubResourceBody(scale)))
	got := &controlplanev1.KubeadmControlPlane{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kcp), got))
	require.Equal(t, ptr.To[int32](5), got.Spec.Replicas)
}

// TestAdmission_RejectsForbiddenUpdates updates a stored KubeadmControlPlane in ways upstream's
// webhook forbids (transition rules, checked against the old object) and in ways it allows.
func TestAdmission_RejectsForbiddenUpdates(t *testing.T) {
	tests := []struct {
		name   string
		create func(kcp *controlplanev1.KubeadmControlPlane)
		update func(kcp *controlplanev1.KubeadmControlPlane)
		// wantMessages is empty when the update must be accepted.
		wantMessages []string
	}{
		{"VersionSkipsAMinor", nil, func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Version = "v1.39.0" },
			[]string{`spec.version: Invalid value: "v1.39.0": cannot update version from v1.37.2 to v1.39.0: the control plane upgrades one minor version at a time; set the next minor version first`}},
		{"VersionToANewMajor", nil, func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Version = "v2.0.0" },
			[]string{"cannot update version from v1.37.2 to v2.0.0"}},
		{"VersionPreReleaseOfTheMinorAfterNext", nil, func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Version = "v1.39.0-rc.1" },
			[]string{"cannot update version from v1.37.2 to v1.39.0-rc.1"}},
		{"VersionNextMinorAnyPatch", nil, func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Version = "v1.38.9" }, nil},
		{"VersionPatch", nil, func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Version = "v1.37.3" }, nil},
		// Upstream's webhook does not refuse a lower version; neither do we.
		{"VersionDowngrade", nil, func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Version = "v1.36.1" }, nil},
		{"CertificatesDirChanged",
			func(k *controlplanev1.KubeadmControlPlane) {
				k.Spec.KubeadmConfigSpec.ClusterConfiguration.CertificatesDir = "/etc/kubernetes/pki"
			},
			func(k *controlplanev1.KubeadmControlPlane) {
				k.Spec.KubeadmConfigSpec.ClusterConfiguration.CertificatesDir = "/var/lib/pki"
			},
			[]string{"spec.kubeadmConfigSpec.clusterConfiguration.certificatesDir: Invalid value", certificatesDirMessage}},
		{"CertificatesDirSetLater", nil,
			func(k *controlplanev1.KubeadmControlPlane) {
				k.Spec.KubeadmConfigSpec.ClusterConfiguration.CertificatesDir = "/var/lib/pki"
			},
			[]string{"spec.kubeadmConfigSpec.clusterConfiguration.certificatesDir", certificatesDirMessage}},
		{"EtcdLocalToExternal", nil,
			func(k *controlplanev1.KubeadmControlPlane) {
				k.Spec.KubeadmConfigSpec.ClusterConfiguration.Etcd = externalEtcd
			},
			[]string{"spec.kubeadmConfigSpec.clusterConfiguration.etcd: Invalid value", etcdSwitchMessage}},
		{"EtcdExternalToLocal",
			func(k *controlplanev1.KubeadmControlPlane) {
				k.Spec.KubeadmConfigSpec.ClusterConfiguration.Etcd = externalEtcd
			},
			func(k *controlplanev1.KubeadmControlPlane) {
				k.Spec.KubeadmConfigSpec.ClusterConfiguration.Etcd = bootstrapv1.Etcd{Local: bootstrapv1.LocalEtcd{DataDir: "/var/lib/etcd"}}
			},
			[]string{"spec.kubeadmConfigSpec.clusterConfiguration.etcd", etcdSwitchMessage}},
		{"EtcdExternalEndpointsChanged",
			func(k *controlplanev1.KubeadmControlPlane) {
				k.Spec.KubeadmConfigSpec.ClusterConfiguration.Etcd = externalEtcd
			},
			func(k *controlplanev1.KubeadmControlPlane) {
				k.Spec.KubeadmConfigSpec.ClusterConfiguration.Etcd.External.Endpoints = []string{"https://10.0.0.9:2379"}
			}, nil},
		{"ScaleToOneWithMaxSurgeZero",
			func(k *controlplanev1.KubeadmControlPlane) {
				k.Spec.Rollout.Strategy = rollingUpdate(intstr.FromInt32(0))
			},
			func(k *controlplanev1.KubeadmControlPlane) { k.Spec.Replicas = ptr.To[int32](1) },
			[]string{"spec.rollout.strategy.rollingUpdate.maxSurge", oneReplicaMaxSurgeZeroMessage}},
		// What upstream keeps mutable stays mutable.
		{"MutableFields", nil, func(k *controlplanev1.KubeadmControlPlane) {
			k.Spec.KubeadmConfigSpec.ClusterConfiguration.APIServer.ExtraArgs = []bootstrapv1.Arg{{Name: "v", Value: ptr.To("4")}}
			k.Spec.KubeadmConfigSpec.ClusterConfiguration.DNS.ImageTag = "v1.14.6"
			k.Spec.KubeadmConfigSpec.ClusterConfiguration.ImageRepository = "registry.example"
			// The ClusterConfiguration fields a rollout writes into the workload cluster's kubeadm-config.
			cc := &k.Spec.KubeadmConfigSpec.ClusterConfiguration
			cc.ControllerManager.ExtraArgs = []bootstrapv1.Arg{{Name: "v", Value: ptr.To("4")}}
			cc.Scheduler.ExtraArgs = []bootstrapv1.Arg{{Name: "v", Value: ptr.To("4")}}
			cc.Etcd.Local.ExtraArgs = []bootstrapv1.Arg{{Name: "quota-backend-bytes", Value: ptr.To("8589934592")}}
			cc.FeatureGates = map[string]bool{"EtcdLearnerMode": true}
			cc.CertificateValidityPeriodDays = 200
			cc.EncryptionAlgorithm = "ECDSA-P256"
			k.Spec.KubeadmConfigSpec.PreKubeadmCommands = []string{"echo hi"}
			k.Spec.MachineTemplate.ObjectMeta.Labels = map[string]string{"env": "prod"}
			k.Spec.MachineTemplate.Spec.InfrastructureRef.Name = "cp-2"
			k.Spec.Rollout.Before.CertificatesExpiryDays = 30
			k.Spec.Replicas = ptr.To[int32](5)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			kcp := newKubeadmControlPlane(env.CreateNamespace(t, "admission-update"))
			if tt.create != nil {
				tt.create(kcp)
			}
			require.NoError(t, env.Client.Create(ctx, kcp))
			tt.update(kcp)
			err := env.Client.Update(ctx, kcp)
			if len(tt.wantMessages) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err, "the API server accepted the update")
			t.Logf("API server: %v", err)
			for _, msg := range tt.wantMessages {
				require.Contains(t, err.Error(), msg)
			}
		})
	}
}
