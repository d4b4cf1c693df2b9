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
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/contracts/testing/conversionfuzz"
)

// TestKCPTemplateUp_DefaultsTheRolloutStrategyType: a v1beta1 template's rolloutStrategy without
// a type becomes a RollingUpdate at v1beta2 (upstream's up-conversion), an absent one stays
// absent, and the v1beta1 client reads back exactly what it wrote.
func TestKCPTemplateUp_DefaultsTheRolloutStrategyType(t *testing.T) {
	maxSurge := intstr.FromInt32(0)
	for name, tc := range map[string]struct {
		in   *RolloutStrategy
		want controlplanev1.KubeadmControlPlaneRolloutStrategy
	}{
		"Absent": {},
		"Empty":  {in: &RolloutStrategy{}, want: controlplanev1.KubeadmControlPlaneRolloutStrategy{Type: controlplanev1.RollingUpdateStrategyType}},
		"OnlyMaxSurge": {in: &RolloutStrategy{RollingUpdate: &RollingUpdate{MaxSurge: &maxSurge}},
			want: controlplanev1.KubeadmControlPlaneRolloutStrategy{Type: controlplanev1.RollingUpdateStrategyType,
				RollingUpdate: controlplanev1.KubeadmControlPlaneRolloutStrategyRollingUpdate{MaxSurge: ptr.To(maxSurge)}}},
		"Typed": {in: &RolloutStrategy{Type: controlplanev1.RollingUpdateStrategyType},
			want: controlplanev1.KubeadmControlPlaneRolloutStrategy{Type: controlplanev1.RollingUpdateStrategyType}},
	} {
		t.Run(name, func(t *testing.T) {
			src := &KubeadmControlPlaneTemplate{}
			src.Name = "tpl"
			src.Spec.Template.Spec.RolloutStrategy = tc.in
			hub := &controlplanev1.KubeadmControlPlaneTemplate{}
			require.NoError(t, ConvertKubeadmControlPlaneTemplateToHub(context.Background(), src.DeepCopy(), hub))
			require.Equal(t, tc.want, hub.Spec.Template.Spec.Rollout.Strategy)

			back := &KubeadmControlPlaneTemplate{}
			require.NoError(t, ConvertHubToKubeadmControlPlaneTemplate(context.Background(), hub, back, conversionfuzz.Resolver))
			require.Equal(t, tc.in, back.Spec.Template.Spec.RolloutStrategy, "the v1beta1 client reads what it wrote")
		})
	}
}
