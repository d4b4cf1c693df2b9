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
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// TestAdmission_MachineTaints covers spec.taints of Machines (and so of the templates of
// MachineSets and MachineDeployments) on the real apiserver.
func TestAdmission_MachineTaints(t *testing.T) {
	taint := func(key string) clusterv1.MachineTaint {
		return clusterv1.MachineTaint{Key: key, Effect: corev1.TaintEffectNoSchedule, Propagation: clusterv1.MachineTaintPropagationAlways}
	}
	tests := []struct {
		name         string
		taints       []clusterv1.MachineTaint
		wantMessages []string // empty: accepted
	}{
		{"Accepted", []clusterv1.MachineTaint{taint("example.com/gpu"), {Key: "init", Value: "v1.0", Effect: corev1.TaintEffectNoExecute, Propagation: clusterv1.MachineTaintPropagationOnInitialization}}, nil},
		{"LongestNameAndPrefix", []clusterv1.MachineTaint{taint(strings.Repeat("p", 253) + "/" + strings.Repeat("n", 63))}, nil},
		{"UninitializedIsClusterAPIs", []clusterv1.MachineTaint{taint("node.cluster.x-k8s.io/uninitialized")},
			[]string{"spec.taints[0].key: Invalid value", `taint key "node.cluster.x-k8s.io/uninitialized" is managed by Cluster API itself and cannot be set on a Machine`}},
		{"OutdatedRevisionIsClusterAPIs", []clusterv1.MachineTaint{taint("node.cluster.x-k8s.io/outdated-revision")},
			[]string{"is managed by Cluster API itself"}},
		{"NameTooLong", []clusterv1.MachineTaint{taint(strings.Repeat("n", 64))}, []string{"spec.taints[0].key", "is too long"}},
		{"PropagationUnknown", []clusterv1.MachineTaint{{Key: "a", Effect: corev1.TaintEffectNoSchedule, Propagation: "Sometimes"}},
			[]string{`spec.taints[0].propagation: Unsupported value: "Sometimes": supported values: "Always", "OnInitialization"`}},
		{"ValueNotALabelValue", []clusterv1.MachineTaint{{Key: "a", Value: "a b", Effect: corev1.TaintEffectNoSchedule, Propagation: clusterv1.MachineTaintPropagationAlways}},
			[]string{"spec.taints[0].value"}},
		{"SameKeyAndEffectTwice", []clusterv1.MachineTaint{taint("a"), taint("a")}, []string{"spec.taints[1]: Duplicate value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(env.CreateNamespace(t, "taints"))
			m.Spec.Taints = tt.taints
			if len(tt.wantMessages) == 0 {
				require.NoError(t, env.Client.Create(context.Background(), m))
				return
			}
			env.RequireInvalid(t, m, tt.wantMessages...)
		})
	}
	t.Run("MachineDeploymentTemplate", func(t *testing.T) {
		md := newMachineDeployment(env.CreateNamespace(t, "taints"))
		md.Spec.Template.Spec.Taints = []clusterv1.MachineTaint{taint("node.cluster.x-k8s.io/uninitialized")}
		env.RequireInvalid(t, md, "spec.template.spec.taints[0].key", "is managed by Cluster API itself")
	})
}
