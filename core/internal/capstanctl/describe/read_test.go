package describe

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/coretest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(coretest.Run(m, &env)) }

func TestRead_FetchesTheClusterItsProviderObjectsAndOnlyItsOwnWorkers(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "describe")
	c := ctltest.Cluster(t, env, ns, "c1",
		ctltest.Condition(clusterv1.AvailableCondition, metav1.ConditionFalse, "NotAvailable", "waiting for workers", time.Minute))
	ctltest.ProviderConditions(t, env, crds.New(crds.GenericControlPlaneGVK, ns, "c1"),
		ctltest.Condition(clusterv1.AvailableCondition, metav1.ConditionTrue, "Available", "", time.Hour))
	other := ctltest.Cluster(t, env, ns, "c2")

	ready := ctltest.Condition(clusterv1.ReadyCondition, metav1.ConditionTrue, "Ready", "", 5*time.Minute)
	ctltest.Machine(t, env, c, "cp-0", map[string]string{clusterv1.MachineControlPlaneLabel: "", clusterv1.MachineControlPlaneNameLabel: "c1"}, ready)
	ctltest.MachineDeployment(t, env, c, "md-0",
		ctltest.Condition(clusterv1.AvailableCondition, metav1.ConditionTrue, "Available", "", time.Hour))
	for _, name := range []string{"md-0-b", "md-0-a"} {
		ctltest.Machine(t, env, c, name, map[string]string{clusterv1.MachineDeploymentNameLabel: "md-0"}, ready)
	}
	ctltest.MachinePool(t, env, c, "mp-0")
	ctltest.Machine(t, env, other, "not-mine", map[string]string{clusterv1.MachineDeploymentNameLabel: "md-0"}, ready)
	ctltest.MachineDeployment(t, env, other, "other-md")

	objs, err := Read(ctx, env.Client, ns, "c1")
	require.NoError(t, err)
	require.Equal(t, "c1", objs.Cluster.Name)
	require.NotNil(t, objs.Infrastructure.Object)
	require.Equal(t, "GenericInfrastructureCluster", objs.Infrastructure.Object.GetKind())
	require.Equal(t, "infrastructure.cluster.x-k8s.io/v1beta2", objs.Infrastructure.Object.GetAPIVersion(),
		"the version comes from the CRD's contract label")
	require.NotNil(t, objs.ControlPlane.Object)
	require.Len(t, objs.MachineDeployments, 1)
	require.Len(t, objs.MachinePools, 1)
	var names []string
	for _, m := range objs.Machines {
		names = append(names, m.Name)
	}
	require.ElementsMatch(t, []string{"cp-0", "md-0-a", "md-0-b"}, names)

	root := Build(*objs, Options{Grouping: true})
	require.Equal(t, metav1.ConditionFalse, root.Ready)
	cp := root.Children[1]
	require.Equal(t, "GenericControlPlane", cp.Kind)
	require.Equal(t, metav1.ConditionTrue, cp.Ready)
	require.Equal(t, "cp-0", cp.Children[0].Name)
	md := root.Children[2].Children[0]
	require.Equal(t, "md-0", md.Name)
	require.Equal(t, []string{"md-0-a", "md-0-b"}, md.Children[0].GroupedNames)
}

func TestRead_MissingProviderCRDOrObjectIsShownNotFatal(t *testing.T) {
	ns := env.CreateNamespace(t, "describe")
	c := ctltest.Cluster(t, env, ns, "c1")
	envtest.Update(t, env.Client, c, func() {
		c.Spec.InfrastructureRef = clusterv1.ContractVersionedObjectReference{
			APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "NoSuchCluster", Name: "c1"}
		c.Spec.ControlPlaneRef.Name = "gone"
	})

	objs, err := Read(context.Background(), env.Client, ns, "c1")
	require.NoError(t, err)
	require.Nil(t, objs.Infrastructure.Object)
	require.Contains(t, objs.Infrastructure.Err, "nosuchclusters.infrastructure.cluster.x-k8s.io")
	require.Contains(t, objs.Infrastructure.Err, "installed")
	require.Nil(t, objs.ControlPlane.Object)
	require.Equal(t, "GenericControlPlane "+ns+"/gone not found", objs.ControlPlane.Err)
}

func TestRead_UnknownClusterSaysHowToListClusters(t *testing.T) {
	_, err := Read(context.Background(), env.Client, "default", "nope")
	require.True(t, apierrors.IsNotFound(err))
	require.ErrorContains(t, err, "cluster default/nope not found: list clusters with 'kubectl get clusters -A'")
}

// TestReadResourceSets_ListsTheSetsTheClustersBindingNames: --show-resourcesets shows the
// ClusterResourceSets the Cluster's binding lists (not others, not a set that is gone) under
// a ClusterResourceSets node, READY from their ResourcesApplied condition.
func TestReadResourceSets_ListsTheSetsTheClustersBindingNames(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "describe-crs")
	c := ctltest.Cluster(t, env, ns, "c1")
	for _, name := range []string{"cni", "storage", "unbound"} {
		crs := &addonsv1.ClusterResourceSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: addonsv1.ClusterResourceSetSpec{ClusterSelector: clusterv1.LabelSelector{MatchLabels: map[string]string{"cni": name}},
				Resources: []addonsv1.ResourceRef{{Kind: string(addonsv1.ConfigMapClusterResourceSetResourceKind), Name: name}}}}
		require.NoError(t, env.Client.Create(ctx, crs))
		if name == "cni" {
			envtest.UpdateStatus(t, env.Client, crs, func() {
				crs.Status.Conditions = []metav1.Condition{{Type: addonsv1.ClusterResourceSetResourcesAppliedCondition, Status: metav1.ConditionTrue,
					Reason: "Applied", LastTransitionTime: metav1.Now()}}
			})
		}
	}
	none, err := ReadResourceSets(ctx, env.Client, ns, "c1")
	require.NoError(t, err)
	require.Empty(t, none, "no binding yet")
	require.NoError(t, env.Client.Create(ctx, &addonsv1.ClusterResourceSetBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns},
		Spec: addonsv1.ClusterResourceSetBindingSpec{ClusterName: "c1", Bindings: []addonsv1.ResourceSetBinding{
			{ClusterResourceSetName: "storage"}, {ClusterResourceSetName: "gone"}, {ClusterResourceSetName: "cni"}}},
	}))

	objs, err := Read(ctx, env.Client, ns, c.Name)
	require.NoError(t, err)
	objs.ClusterResourceSets, err = ReadResourceSets(ctx, env.Client, ns, c.Name)
	require.NoError(t, err)
	root := Build(*objs, Options{})
	sets := root.Children[1]
	require.Equal(t, RoleClusterResourceSets, sets.Role)
	require.Len(t, sets.Children, 2)
	require.Equal(t, "cni", sets.Children[0].Name)
	require.Equal(t, "ClusterResourceSet", sets.Children[0].Kind)
	require.Equal(t, metav1.ConditionTrue, sets.Children[0].Ready)
	require.Equal(t, addonsv1.ClusterResourceSetResourcesAppliedCondition, sets.Children[0].ReadyCondition)
	require.Equal(t, "storage", sets.Children[1].Name)
}
