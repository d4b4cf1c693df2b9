package machinedeployment

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/coretest"
)

// listMachines reads the cache without its deep copy (in the benchmark those copies were most
// of the core's allocations): it must copy the Machines of the MachineDeployment's own
// MachineSets, so nothing it returns aliases the cache.
func TestListMachines_CopiesOnlyTheMachineSetsOwnMachinesOutOfTheCache(t *testing.T) {
	owned := &clusterv1.MachineSet{ObjectMeta: metav1.ObjectMeta{Name: "ms", UID: "ms-uid"}}
	cached := make([]clusterv1.Machine, 50)
	for i := range cached {
		uid := types.UID("other-ms")
		if i < 3 {
			uid = owned.UID
		}
		cached[i] = clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("m-%02d", i),
			Labels:          map[string]string{clusterv1.ClusterNameLabel: "c1"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "MachineSet", Name: "x", UID: uid, Controller: new(true)}}}}
	}
	var listOpts []client.ListOption
	c := interceptor.NewClient(fake.NewClientBuilder().Build(), interceptor.Funcs{
		List: func(_ context.Context, _ client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			listOpts = opts
			list.(*clusterv1.MachineList).Items = cached // what a cache without deep copy hands out
			return nil
		},
	})
	r := &Reconciler{Client: c}
	md := &clusterv1.MachineDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "md"},
		Spec: clusterv1.MachineDeploymentSpec{ClusterName: "c1"}}

	got, err := r.listMachines(context.Background(), md, []*clusterv1.MachineSet{owned})
	require.NoError(t, err)
	require.Contains(t, listOpts, client.UnsafeDisableDeepCopy)
	require.Len(t, got[owned.UID], 3)
	for _, m := range got[owned.UID] {
		m.Labels["changed"] = "yes"
	}
	for i := range cached {
		require.NotContains(t, cached[i].Labels, "changed", "a returned Machine aliases the cache's %s", cached[i].Name)
	}
}

// listMachines reads each MachineSet's Machines through the cache's controller index: a
// reconcile must not walk every Machine of a large Cluster (it did, and a rollout of 1,000
// Machines spent a sixth of the core's CPU there).
func TestListMachines_ReadsOnlyTheMachineSetsOwnMachinesThroughTheIndex(t *testing.T) {
	sets := []*clusterv1.MachineSet{
		{ObjectMeta: metav1.ObjectMeta{Name: "old", UID: "old-uid"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "new", UID: "new-uid"}},
	}
	var objs []client.Object
	for i := range 30 {
		owner := types.UID(fmt.Sprintf("elsewhere-%d", i%3))
		switch {
		case i < 2:
			owner = "old-uid"
		case i < 5:
			owner = "new-uid"
		}
		objs = append(objs, &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("m-%02d", 29-i),
			Labels:          map[string]string{clusterv1.ClusterNameLabel: "c1"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "MachineSet", Name: "x", UID: owner, Controller: new(true)}}}})
	}
	c, listed := coretest.IndexedFakeClient(t, objs...)
	r := &Reconciler{Client: c}
	md := &clusterv1.MachineDeployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "md"},
		Spec: clusterv1.MachineDeploymentSpec{ClusterName: "c1"}}

	got, err := r.listMachines(context.Background(), md, sets)
	require.NoError(t, err)
	names := func(uid types.UID) []string {
		var out []string
		for _, m := range got[uid] {
			out = append(out, m.Name)
		}
		return out
	}
	require.Equal(t, []string{"m-28", "m-29"}, names("old-uid"))
	require.Equal(t, []string{"m-25", "m-26", "m-27"}, names("new-uid"))
	require.Equal(t, 5, *listed, "Machines read from the cache: only the two MachineSets' own")
}
