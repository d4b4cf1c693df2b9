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
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/contracts/conversion"
	"capstan.dev/contracts/testing/conversionfuzz"
)

// largeTemplate is a v1beta1 KubeadmConfigTemplate of about 200 KiB of files, with details
// v1beta2 has no field for (the kubeadm clusterName, a sub-second timeout).
func largeTemplate() *KubeadmConfigTemplate {
	tpl := &KubeadmConfigTemplate{ObjectMeta: metav1.ObjectMeta{Name: "workers", Namespace: "ns"}}
	spec := &tpl.Spec.Template.Spec
	spec.ClusterConfiguration = &ClusterConfiguration{ClusterName: "legacy-name",
		APIServer: APIServer{TimeoutForControlPlane: &metav1.Duration{Duration: 90*time.Second + 500*time.Millisecond}}}
	for i := range 4 {
		spec.Files = append(spec.Files, File{Path: fmt.Sprintf("/etc/large-%d", i), Permissions: "0644", Content: strings.Repeat("x", 50<<10)})
	}
	return tpl
}

// TestConversionData_RecordsOnlyWhatTheOtherVersionCannotExpress: the conversion-data
// annotation of a large template, in either direction, holds the few details the other version
// has no field for, never the files (upstream records only the fields its restore reads), so
// a client-side apply's last-applied copy of the object still fits the 256 KiB annotation
// limit beside it. Nothing is lost on either round trip.
func TestConversionData_RecordsOnlyWhatTheOtherVersionCannotExpress(t *testing.T) {
	ctx := context.Background()
	const small = 1 << 10
	written := largeTemplate()
	hub := &bootstrapv1.KubeadmConfigTemplate{}
	require.NoError(t, ConvertKubeadmConfigTemplateToHub(ctx, written.DeepCopy(), hub))
	recorded := hub.Annotations[conversion.DataAnnotation]
	require.Less(t, len(recorded), small, "recorded on v1beta2: %.200s", recorded)
	require.Contains(t, recorded, "legacy-name")
	require.Contains(t, recorded, "1m30.5s")

	read := &KubeadmConfigTemplate{}
	require.NoError(t, ConvertHubToKubeadmConfigTemplate(ctx, hub, read, conversionfuzz.Resolver))
	require.NotContains(t, read.Annotations, conversion.DataAnnotation, "v1beta1 expresses all that v1beta2 holds here")
	require.Empty(t, cmp.Diff(written, read), "v1beta1 reads back what it wrote")

	// v1beta2 writes what v1beta1 cannot say (false, not unset; a timeout v1beta1 has no field for).
	hub.Spec.Template.Spec.Files[0].Append = ptr.To(false)
	hub.Spec.Template.Spec.InitConfiguration.Timeouts.KubeletHealthCheckSeconds = ptr.To[int32](77)
	require.NoError(t, ConvertHubToKubeadmConfigTemplate(ctx, hub, read, conversionfuzz.Resolver))
	recorded = read.Annotations[conversion.DataAnnotation]
	require.Less(t, len(recorded), small+50<<10, "recorded on v1beta1: one file, not four: %.200s", recorded)
	require.Contains(t, recorded, "/etc/large-0")
	require.NotContains(t, recorded, "/etc/large-1")
	back := &bootstrapv1.KubeadmConfigTemplate{}
	require.NoError(t, ConvertKubeadmConfigTemplateToHub(ctx, read, back))
	delete(hub.Annotations, conversion.DataAnnotation)
	delete(back.Annotations, conversion.DataAnnotation)
	require.Empty(t, cmp.Diff(hub, back), "v1beta2 reads back what it wrote")
}

// TestConversionData_CarriesIgnitionNatively: v1beta2 has upstream's spec.ignition, so a
// v1beta1 ignition converts to it field for field and is not recorded in the conversion-data
// annotation; v1beta1 reads back what it wrote, and v1beta2's strict: false survives the trip.
func TestConversionData_CarriesIgnitionNatively(t *testing.T) {
	ctx := context.Background()
	written := &KubeadmConfig{ObjectMeta: metav1.ObjectMeta{Name: "n", Namespace: "ns"}}
	written.Spec.Format = bootstrapv1.Ignition
	written.Spec.Ignition = &IgnitionSpec{ContainerLinuxConfig: &ContainerLinuxConfig{AdditionalConfig: "systemd:\n  units: []\n", Strict: true}}
	hub := &bootstrapv1.KubeadmConfig{}
	require.NoError(t, ConvertKubeadmConfigToHub(ctx, written.DeepCopy(), hub))
	require.Equal(t, bootstrapv1.IgnitionSpec{ContainerLinuxConfig: bootstrapv1.ContainerLinuxConfig{
		AdditionalConfig: "systemd:\n  units: []\n", Strict: ptr.To(true)}}, hub.Spec.Ignition)
	require.NotContains(t, hub.Annotations[conversion.DataAnnotation], "additionalConfig")

	read := &KubeadmConfig{}
	require.NoError(t, ConvertHubToKubeadmConfig(ctx, hub, read, conversionfuzz.Resolver))
	require.NotContains(t, read.Annotations, conversion.DataAnnotation)
	require.Empty(t, cmp.Diff(written, read), "v1beta1 reads back what it wrote")

	hub.Spec.Ignition.ContainerLinuxConfig.Strict = ptr.To(false)
	require.NoError(t, ConvertHubToKubeadmConfig(ctx, hub, read, conversionfuzz.Resolver))
	require.False(t, read.Spec.Ignition.ContainerLinuxConfig.Strict)
	back := &bootstrapv1.KubeadmConfig{}
	require.NoError(t, ConvertKubeadmConfigToHub(ctx, read, back))
	require.Equal(t, ptr.To(false), back.Spec.Ignition.ContainerLinuxConfig.Strict)
}
