package topologyplan_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/capstanctl/template"
	"capstan.dev/core/internal/capstanctl/topologyplan"
)

// developmentMP renders `capstanctl generate cluster dev-mp --flavor development-mp` into ns.
func developmentMP(t *testing.T, ns string) *unstructured.Unstructured {
	t.Helper()
	raw, err := template.Load("development-mp")
	require.NoError(t, err)
	rendered, err := template.Render(raw, template.Values{Env: func(string) (string, bool) { return "", false }, Flags: map[string]string{
		"CLUSTER_NAME": "dev-mp", "NAMESPACE": ns, "KUBERNETES_VERSION": "v1.37.2",
		"CONTROL_PLANE_MACHINE_COUNT": "1", "WORKER_MACHINE_COUNT": "2"}})
	require.NoError(t, err)
	objs, err := template.Objects(rendered)
	require.NoError(t, err)
	return theCluster(t, objs)
}

// The plan of a development-mp Cluster shows the pool's KubeadmConfig and DockerMachinePool
// (objects, patched with the node image of the pool's version) and the MachinePool.
func TestPlan_DevelopmentMPListsTheMachinePoolAndItsObjects(t *testing.T) {
	ns := env.CreateNamespace(t, "plan-mp")
	class, _ := quickStart(t, ns)
	plans, err := topologyplan.Plan(context.Background(), env.Client, append(class, developmentMP(t, ns)))
	require.NoError(t, err)
	require.Len(t, plans, 1)
	p := plans[0]
	require.Equal(t, []string{"create DockerCluster", "create DockerMachineTemplate", "create KubeadmControlPlane",
		"create MachineHealthCheck", "create KubeadmConfig", "create DockerMachinePool", "create MachinePool"}, actions(p))
	require.Equal(t, "capstan/node:v1.37.2", nested[string](t, p.Changes[5].Object, "spec", "template", "customImage"))
	mp := p.Changes[6].Object
	require.Equal(t, int64(2), nested[int64](t, mp, "spec", "replicas"))
	require.Equal(t, p.Changes[4].Object.GetName(), nested[string](t, mp, "spec", "template", "spec", "bootstrap", "configRef", "name"))
	require.Equal(t, p.Changes[5].Object.GetName(), nested[string](t, mp, "spec", "template", "spec", "infrastructureRef", "name"))
}

// The quick-start class's default-worker MachinePool class works with the real CRDs and
// admission policies: the controller generates a KubeadmConfig, a DockerMachinePool with the
// node image of the version, and the MachinePool referencing both, all owned by the Cluster.
func TestQuickStart_DevelopmentMPGeneratesTheMachinePool(t *testing.T) {
	startControllers(t)
	ns := env.CreateNamespace(t, "quick-start-mp")
	class, _ := quickStart(t, ns)
	create(t, class...)
	create(t, developmentMP(t, ns))
	c := waitTopologyReconciled(t, ns, "dev-mp")

	mps := &clusterv1.MachinePoolList{}
	require.NoError(t, env.Client.List(context.Background(), mps, client.InNamespace(ns)))
	require.Len(t, mps.Items, 1)
	mp := mps.Items[0]
	require.Equal(t, "mp-0", mp.Labels[clusterv1.ClusterTopologyMachinePoolNameLabel])
	require.Equal(t, c.UID, mp.OwnerReferences[0].UID)
	require.Equal(t, int32(2), *mp.Spec.Replicas)
	require.Equal(t, "v1.37.2", mp.Spec.Template.Spec.Version)
	pool := get(t, dockerAPIVersion, "DockerMachinePool", ns, mp.Spec.Template.Spec.InfrastructureRef.Name)
	require.Equal(t, "capstan/node:v1.37.2", nested[string](t, pool, "spec", "template", "customImage"))
	require.Equal(t, c.UID, pool.GetOwnerReferences()[0].UID)
	config := get(t, "bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfig", ns, mp.Spec.Template.Spec.Bootstrap.ConfigRef.Name)
	require.Equal(t, "cloud-config", nested[string](t, config, "spec", "format"))
}
