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

package dashboardpicture

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Every step writes the status of an object the fleet has, and says how Prometheus shows it.
func TestSteps_PatchObjectsOfTheFleet(t *testing.T) {
	objs, err := fleetObjects("2026-01-02T03:04:05Z")
	require.NoError(t, err)
	have := map[string]bool{}
	for _, o := range objs {
		require.NotEmpty(t, o.GetAPIVersion(), "%s/%s", o.GetKind(), o.GetName())
		have[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()] = true
	}
	steps, err := loadSteps("2026-01-02T03:04:05Z")
	require.NoError(t, err)
	require.NotEmpty(t, steps)
	for _, s := range steps {
		require.NotEmpty(t, s.VisibleWhen, s.Name)
		for _, p := range s.Patches {
			require.True(t, have[p.Kind+"/"+p.Namespace+"/"+p.Name], "step %q patches %s %s/%s, which the fleet lacks", s.Name, p.Kind, p.Namespace, p.Name)
		}
	}
}

// The panels need Clusters, Machines and control planes in more than one state.
func TestFleet_HoldsTheStatesThePanelsShow(t *testing.T) {
	objs, err := fleetObjects("2026-01-02T03:04:05Z")
	require.NoError(t, err)
	phases := map[string]map[string]bool{}
	for _, o := range objs {
		phase, _, _ := unstructured.NestedString(o.Object, "status", "phase")
		if phases[o.GetKind()] == nil {
			phases[o.GetKind()] = map[string]bool{}
		}
		phases[o.GetKind()][phase] = true
	}
	require.Len(t, phases["Cluster"], 3)
	require.GreaterOrEqual(t, len(phases["Machine"]), 4)
}
