package topologyplan_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

const (
	kcpAPIVersion    = "controlplane.cluster.x-k8s.io/v1beta2"
	dockerAPIVersion = "infrastructure.cluster.x-k8s.io/v1beta2"
	pssFile          = "/etc/kubernetes/kube-apiserver-admission-pss.yaml"
)

// The quick-start class and the development Cluster apply on the real API server with every
// provider's CRDs and admission policies, and the topology controller generates the
// DockerCluster, the KubeadmControlPlane and the MachineDeployment with the class's patches
// applied: the Pod Security admission configuration, the node image of the version, and no
// image overrides while those variables are empty.
func TestQuickStart_TheTopologyControllerGeneratesThePatchedObjects(t *testing.T) {
	startControllers(t)
	ns := env.CreateNamespace(t, "quick-start")
	class, cluster := quickStart(t, ns)
	create(t, class...)
	create(t, cluster)
	c := waitTopologyReconciled(t, ns, cluster.GetName())

	require.Equal(t, "DockerCluster", c.Spec.InfrastructureRef.Kind)
	get(t, dockerAPIVersion, "DockerCluster", ns, c.Spec.InfrastructureRef.Name)

	require.Equal(t, "KubeadmControlPlane", c.Spec.ControlPlaneRef.Kind)
	kcp := get(t, kcpAPIVersion, "KubeadmControlPlane", ns, c.Spec.ControlPlaneRef.Name)
	require.Equal(t, "v1.37.2", nested[string](t, kcp, "spec", "version"))
	require.Equal(t, int64(1), nested[int64](t, kcp, "spec", "replicas"))
	clusterConfig := nested[map[string]any](t, kcp, "spec", "kubeadmConfigSpec", "clusterConfiguration")
	require.NotContains(t, clusterConfig, "imageRepository", "imageRepository is empty: its patch is not enabled")
	require.NotContains(t, clusterConfig, "etcd", "etcdImageTag is empty")
	require.NotContains(t, clusterConfig, "dns", "coreDNSImageTag is empty")
	apiServer := clusterConfig["apiServer"].(map[string]any)
	require.Equal(t, []any{map[string]any{"name": "admission-control-config-file", "value": pssFile}}, apiServer["extraArgs"])
	require.Equal(t, []any{"localhost", "127.0.0.1"}, apiServer["certSANs"], "the template's own fields stay")
	files := nested[[]any](t, kcp, "spec", "kubeadmConfigSpec", "files")
	require.Len(t, files, 1)
	require.Equal(t, pssFile, files[0].(map[string]any)["path"])
	require.Contains(t, files[0].(map[string]any)["content"], `enforce: "baseline"`)

	cpMachines := nested[string](t, kcp, "spec", "machineTemplate", "spec", "infrastructureRef", "name")
	cpTemplate := get(t, dockerAPIVersion, "DockerMachineTemplate", ns, cpMachines)
	require.Equal(t, "capstan/node:v1.37.2", nested[string](t, cpTemplate, "spec", "template", "spec", "customImage"))

	mds := &clusterv1.MachineDeploymentList{}
	require.NoError(t, env.Client.List(context.Background(), mds, client.InNamespace(ns)))
	require.Len(t, mds.Items, 1)
	md := mds.Items[0]
	require.Equal(t, "md-0", md.Labels[clusterv1.ClusterTopologyMachineDeploymentNameLabel])
	require.Equal(t, int32(1), *md.Spec.Replicas)
	require.Equal(t, "v1.37.2", md.Spec.Template.Spec.Version)
	workerTemplate := get(t, dockerAPIVersion, "DockerMachineTemplate", ns, md.Spec.Template.Spec.InfrastructureRef.Name)
	require.Equal(t, "capstan/node:v1.37.2", nested[string](t, workerTemplate, "spec", "template", "spec", "customImage"))
	bootstrap := get(t, "bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfigTemplate", ns, md.Spec.Template.Spec.Bootstrap.ConfigRef.Name)
	require.Equal(t, "cloud-config", nested[string](t, bootstrap, "spec", "template", "spec", "format"))

	mhcs := &clusterv1.MachineHealthCheckList{}
	require.NoError(t, env.Client.List(context.Background(), mhcs, client.InNamespace(ns)))
	require.Len(t, mhcs.Items, 2, "the class enables health checks for the control plane and the workers")
}

// Upstream's development flavor writes the topology version as the user passes it; "1.37.2"
// is stored as "v1.37.2" at admission, as upstream's Cluster webhook does.
func TestQuickStart_ClusterVersionWithoutVIsDefaulted(t *testing.T) {
	ns := env.CreateNamespace(t, "quick-start")
	_, cluster := quickStart(t, ns)
	cluster.Object["spec"].(map[string]any)["topology"].(map[string]any)["version"] = "1.37.2"
	create(t, cluster)
	c := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(cluster), c))
	require.Equal(t, "v1.37.2", c.Spec.Topology.Version)
}
