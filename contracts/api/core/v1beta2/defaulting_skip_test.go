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
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// The defaulting policies of the kinds the controllers write most run only when they have
// something to do: a write that carries every default already (a scale patch, a Machine's
// providerID) passes without the JSON patch round trip the API server makes for every policy
// invocation, even an empty one. A write that lacks any one default is still defaulted. The API
// server's own count of policy invocations tells the two apart.
func TestDefaulting_PoliciesRunOnlyForWritesWithSomethingToDefault(t *testing.T) {
	ns := env.CreateNamespace(t, "defaults")
	setParts := func(o client.Object) (*clusterv1.LabelSelector, *clusterv1.MachineTemplateSpec, **int32) {
		switch o := o.(type) {
		case *clusterv1.MachineSet:
			return &o.Spec.Selector, &o.Spec.Template, &o.Spec.Replicas
		case *clusterv1.MachineDeployment:
			return &o.Spec.Selector, &o.Spec.Template, &o.Spec.Replicas
		}
		panic("not a MachineSet or MachineDeployment")
	}
	setCases := []defaultedWrite{
		{"metadata label removed", func(o client.Object) { delLabel(o) }, func(o client.Object) string { return o.GetLabels()[clusterv1.ClusterNameLabel] }, "c1"},
		{"template label changed", func(o client.Object) { _, tpl, _ := setParts(o); tpl.Labels[clusterv1.ClusterNameLabel] = "other" },
			func(o client.Object) string { _, tpl, _ := setParts(o); return tpl.Labels[clusterv1.ClusterNameLabel] }, "c1"},
		{"replicas unset", func(o client.Object) { _, _, r := setParts(o); *r = nil },
			func(o client.Object) string { _, _, r := setParts(o); return strconv.Itoa(int(ptr.Deref(*r, -1))) }, "1"},
		{"template version without v", func(o client.Object) { _, tpl, _ := setParts(o); tpl.Spec.Version = "1.37.3" },
			func(o client.Object) string { _, tpl, _ := setParts(o); return tpl.Spec.Version }, "v1.37.3"},
	}
	for _, tc := range []struct {
		policy, doc string
		obj         client.Object
		nothingToDo func(client.Object)
		defaulted   []defaultedWrite
	}{
		{"machine-defaults", upstreamMachine("m-skip"), &clusterv1.Machine{},
			func(o client.Object) {
				o.SetAnnotations(map[string]string{"touched-at": o.GetResourceVersion()}) // a new value each time
			},
			[]defaultedWrite{
				{"label removed", func(o client.Object) { delLabel(o) }, func(o client.Object) string { return o.GetLabels()[clusterv1.ClusterNameLabel] }, "c1"},
				{"label changed", func(o client.Object) { o.GetLabels()[clusterv1.ClusterNameLabel] = "other" },
					func(o client.Object) string { return o.GetLabels()[clusterv1.ClusterNameLabel] }, "c1"},
				{"version without v", func(o client.Object) { o.(*clusterv1.Machine).Spec.Version = "1.37.3" },
					func(o client.Object) string { return o.(*clusterv1.Machine).Spec.Version }, "v1.37.3"},
			}},
		{"machineset-defaults", withTemplate("MachineSet", "  name: ms-0"), &clusterv1.MachineSet{},
			func(o client.Object) { _, _, r := setParts(o); *r = ptr.To(ptr.Deref(*r, 0) + 1) }, setCases},
		{"machinedeployment-defaults", withTemplate("MachineDeployment", "  name: md-0"), &clusterv1.MachineDeployment{},
			func(o client.Object) { _, _, r := setParts(o); *r = ptr.To(ptr.Deref(*r, 0) + 1) }, setCases},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			ctx := context.Background()
			create(t, ns, tc.doc, tc.obj)
			for range 3 {
				before := policyInvocations(t, tc.policy)
				tc.nothingToDo(tc.obj)
				require.NoError(t, env.Client.Update(ctx, tc.obj))
				require.Equal(t, before, policyInvocations(t, tc.policy), "a write with every default in place ran the policy")
			}
			for _, w := range tc.defaulted {
				before := policyInvocations(t, tc.policy)
				w.change(tc.obj)
				require.NoError(t, env.Client.Update(ctx, tc.obj))
				require.Equal(t, w.want, w.read(tc.obj), w.name)
				require.Greater(t, policyInvocations(t, tc.policy), before, "%s: the policy did not run", w.name)
			}
		})
	}
}

// defaultedWrite is a change that takes a default away, and how to read it back.
type defaultedWrite struct {
	name   string
	change func(client.Object)
	read   func(client.Object) string
	want   string
}

func delLabel(o client.Object) {
	labels := o.GetLabels()
	delete(labels, clusterv1.ClusterNameLabel)
	o.SetLabels(labels)
}

// policyInvocations is the API server's count of policy's mutations run
// (apiserver_mutating_admission_policy_check_total, every binding and outcome).
func policyInvocations(t *testing.T, policy string) float64 {
	t.Helper()
	cs, err := kubernetes.NewForConfig(env.Config)
	require.NoError(t, err)
	raw, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	require.NoError(t, err)
	total := 0.0
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "apiserver_mutating_admission_policy_check_total{") || !strings.Contains(line, `policy="`+policy+`"`) {
			continue
		}
		fields := strings.Fields(line)
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		require.NoError(t, err, line)
		total += v
	}
	return total
}
