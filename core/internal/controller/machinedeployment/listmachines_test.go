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
)

// listMachines reads every Machine of the Cluster on each reconcile: it must ask the cache
// not to deep-copy them all (in the benchmark those copies were most of the core's
// allocations) and copy only the Machines of the MachineDeployment's own MachineSets, so
// nothing it returns aliases the cache.
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
