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
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/randfill"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/contracts/testing/conversionfuzz"
)

func TestFuzzRoundTrip_KubeadmControlPlane(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *controlplanev1.KubeadmControlPlane { return &controlplanev1.KubeadmControlPlane{} },
		func() *KubeadmControlPlane { return &KubeadmControlPlane{} }, ConvertKubeadmControlPlaneToHub, ConvertHubToKubeadmControlPlane,
		func(seed int64) *randfill.Filler {
			return filler(seed).Funcs(conversionfuzz.Shown(kubeadmControlPlaneConversion.ShowDerived))
		})
}

func TestFuzzRoundTrip_KubeadmControlPlaneTemplate(t *testing.T) {
	conversionfuzz.RoundTrip(t, func() *controlplanev1.KubeadmControlPlaneTemplate {
		return &controlplanev1.KubeadmControlPlaneTemplate{}
	},
		func() *KubeadmControlPlaneTemplate { return &KubeadmControlPlaneTemplate{} },
		ConvertKubeadmControlPlaneTemplateToHub, ConvertHubToKubeadmControlPlaneTemplate, templateFiller)
}

// templateFiller is filler with the v1beta2 template's rollout strategy as the API server holds
// it: a strategy that is there has a type (the schema defaults it; up-conversion too).
func templateFiller(seed int64) *randfill.Filler {
	return filler(seed).Funcs(func(s *controlplanev1.KubeadmControlPlaneTemplateResourceSpec, c randfill.Continue) {
		c.FillNoCustom(s)
		if st := &s.Rollout.Strategy; st.Type == "" && st.RollingUpdate.MaxSurge != nil {
			st.Type = controlplanev1.RollingUpdateStrategyType
		}
	})
}

// filler makes objects as the API server holds them: a list behind a pointer (nil vs empty
// matters there) is absent or a list, never a pointer to nothing; a partition has exactly one
// of layout and diskLayout.
func filler(seed int64) *randfill.Filler {
	return conversionfuzz.Filler(seed, conversionfuzz.PointerList[bootstrapv1.EnvVar](), conversionfuzz.PointerList[corev1.Taint](), validPartition)
}

func validPartition(p *bootstrapv1.Partition, c randfill.Continue) {
	c.FillNoCustom(p)
	if len(p.DiskLayout) > 0 {
		p.Layout = nil
	} else if p.Layout == nil {
		p.Layout = ptr.To(c.Bool())
	}
}
