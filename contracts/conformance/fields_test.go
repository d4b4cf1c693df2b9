package conformance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func obj(kind string, content map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: content}
	u.SetKind(kind)
	u.SetNamespace("ns")
	u.SetName("x")
	return u
}

func TestFieldProblems_ReportMistypedContractFields(t *testing.T) {
	tests := []struct {
		name  string
		check func(*unstructured.Unstructured) []string
		obj   *unstructured.Unstructured
		want  []string
	}{
		{name: "a well-formed InfraMachine", check: machineFieldProblems, obj: obj("FooMachine", map[string]any{
			"spec": map[string]any{"providerID": "foo:///x"},
			"status": map[string]any{
				"initialization": map[string]any{"provisioned": true},
				"addresses":      []any{map[string]any{"type": "InternalIP", "address": "10.0.0.1"}},
				"failureDomain":  "a",
				"conditions":     []any{map[string]any{"type": "Ready", "status": "True", "reason": "Up"}},
			},
		})},
		{name: "providerID as a number", check: machineFieldProblems, obj: obj("FooMachine", map[string]any{
			"spec": map[string]any{"providerID": int64(42)},
		}), want: []string{"InfraMachine: provider ID (spec.providerID is a string): field spec.providerID of FooMachine ns/x: expected string, got integer"}},
		{name: "provisioned as a string", check: machineFieldProblems, obj: obj("FooMachine", map[string]any{
			"status": map[string]any{"initialization": map[string]any{"provisioned": "true"}},
		}), want: []string{"status.initialization.provisioned of FooMachine ns/x: expected bool, got string"}},
		{name: "an address of an unknown type, and one without address", check: machineFieldProblems, obj: obj("FooMachine", map[string]any{
			"status": map[string]any{"addresses": []any{
				map[string]any{"type": "PublicIP", "address": "1.2.3.4"},
				map[string]any{"type": "Hostname", "address": ""},
			}},
		}), want: []string{`status.addresses[0].type is "PublicIP", want one of Hostname`, "status.addresses[1].address is empty"}},
		{name: "malformed conditions", check: machineFieldProblems, obj: obj("FooMachine", map[string]any{
			"status": map[string]any{"conditions": []any{
				map[string]any{"type": "Ready", "status": "Yes"},
				map[string]any{"status": "True", "reason": int64(1)},
			}},
		}), want: []string{"status.conditions[0].status must be True, False or Unknown, got Yes",
			"status.conditions[1].type must be a non-empty string", "status.conditions[1].reason must be a string"}},
		{name: "endpoint port as a string", check: clusterFieldProblems, obj: obj("FooCluster", map[string]any{
			"spec": map[string]any{"controlPlaneEndpoint": map[string]any{"host": "h", "port": "6443"}},
		}), want: []string{"field spec.controlPlaneEndpoint.port of FooCluster ns/x: expected integer, got string"}},
		{name: "failure domains as the v1beta1 map", check: clusterFieldProblems, obj: obj("FooCluster", map[string]any{
			"status": map[string]any{"failureDomains": map[string]any{"a": map[string]any{"controlPlane": true}}},
		}), want: []string{"field status.failureDomains of FooCluster ns/x: expected array, got object"}},
		{name: "dataSecretName as a bool", check: bootstrapFieldProblems, obj: obj("FooConfig", map[string]any{
			"status": map[string]any{"dataSecretName": true, "initialization": map[string]any{"dataSecretCreated": true}},
		}), want: []string{"BootstrapConfig: data secret (status.dataSecretName is a string)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.check(tt.obj)
			require.Len(t, got, len(tt.want), "problems: %q", got)
			for i, w := range tt.want {
				require.Contains(t, got[i], w)
			}
		})
	}
}

func TestProviderIDProblems(t *testing.T) {
	require.Empty(t, providerIDProblems("docker:////node-1", ""))
	require.Empty(t, providerIDProblems("example:///m", "example"))
	require.Empty(t, providerIDProblems("aws:///us-east-1a/i-0abc", "aws"))
	require.Len(t, providerIDProblems("node-1", ""), 1)
	require.Len(t, providerIDProblems("example://", ""), 1, "an empty id")
	require.Contains(t, providerIDProblems("docker:////n", "example")[0], `want the scheme "example"`)
}

func TestPausedState_IgnoresOnlyThePausedCondition(t *testing.T) {
	base := obj("FooMachine", map[string]any{"spec": map[string]any{"a": "b"}})
	withPaused := obj("FooMachine", map[string]any{"spec": map[string]any{"a": "b"}, "status": map[string]any{
		"conditions": []any{map[string]any{"type": "Paused", "status": "True"}},
	}})
	require.Empty(t, cmp.Diff(pausedState(base), pausedState(withPaused)), "reporting Paused is allowed")

	withReady := obj("FooMachine", map[string]any{"spec": map[string]any{"a": "b"}, "status": map[string]any{
		"conditions": []any{map[string]any{"type": "Paused", "status": "True"}, map[string]any{"type": "Ready", "status": "False"}},
	}})
	require.NotEmpty(t, cmp.Diff(pausedState(base), pausedState(withReady)), "any other condition is a change")

	provisioned := obj("FooMachine", map[string]any{"spec": map[string]any{"a": "b"}, "status": map[string]any{
		"initialization": map[string]any{"provisioned": true},
	}})
	require.NotEmpty(t, cmp.Diff(pausedState(base), pausedState(provisioned)))
	respec := obj("FooMachine", map[string]any{"spec": map[string]any{"a": "c"}})
	require.NotEmpty(t, cmp.Diff(pausedState(base), pausedState(respec)))
}
