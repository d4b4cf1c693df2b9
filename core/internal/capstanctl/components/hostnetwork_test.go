package components

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestServiceAccount_IsTheOneEachDeploymentRunsAsAndHasItsBinding(t *testing.T) {
	for _, p := range All {
		sa, err := p.ServiceAccount()
		require.NoError(t, err)
		objs, err := p.Objects()
		require.NoError(t, err)
		var haveSA, bound bool
		for _, o := range objs {
			switch o.GetKind() {
			case "ServiceAccount":
				haveSA = haveSA || (o.GetName() == sa && o.GetNamespace() == p.Namespace)
			case "ClusterRoleBinding":
				subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
				for _, s := range subjects {
					m := s.(map[string]any)
					bound = bound || (m["kind"] == "ServiceAccount" && m["name"] == sa && m["namespace"] == p.Namespace)
				}
			}
		}
		require.True(t, haveSA, "%s: the components create ServiceAccount %s/%s", p.Name, p.Namespace, sa)
		require.True(t, bound, "%s: a ClusterRoleBinding grants ServiceAccount %s its role", p.Name, sa)
	}
}

func TestSetHostNetwork_GivesEachProviderItsOwnPortsOnTheNode(t *testing.T) {
	objs, err := Load(All)
	require.NoError(t, err)
	require.NoError(t, SetHostNetwork(objs))
	used := map[int64]string{}
	deployments := 0
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		deployments++
		spec := o.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		require.Equal(t, true, spec["hostNetwork"], o.GetNamespace())
		require.Equal(t, "ClusterFirstWithHostNet", spec["dnsPolicy"], o.GetNamespace())
		c := spec["containers"].([]any)[0].(map[string]any)
		ports := map[string]int64{}
		for _, p := range c["ports"].([]any) {
			m := p.(map[string]any)
			port := m["containerPort"].(int64)
			require.NotContains(t, used, port, "port %d of %s is also %s's", port, o.GetNamespace(), used[port])
			used[port] = o.GetNamespace()
			ports[m["name"].(string)] = port
		}
		args := c["args"].([]any)
		require.Contains(t, args, fmt.Sprintf("--diagnostics-address=:%d", ports["metrics"]))
		require.Contains(t, args, fmt.Sprintf("--health-addr=:%d", ports["healthz"]))
		if port, ok := ports["webhook"]; ok {
			require.Contains(t, args, fmt.Sprintf("--webhook-bind-address=:%d", port))
		}
	}
	require.Equal(t, len(All), deployments)
}
