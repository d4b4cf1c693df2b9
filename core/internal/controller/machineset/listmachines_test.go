package machineset

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// getAndAdoptMachines reads every Machine of the Cluster on each reconcile: it must ask the
// cache not to deep-copy them all and copy only the MachineSet's own, so nothing it returns
// aliases the cache.
func TestGetAndAdoptMachines_CopiesOnlyTheMachineSetsOwnMachinesOutOfTheCache(t *testing.T) {
	ms := &clusterv1.MachineSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ms", UID: "ms-uid"},
		Spec: clusterv1.MachineSetSpec{ClusterName: "c1"}}
	cached := make([]clusterv1.Machine, 50)
	for i := range cached {
		uid := types.UID("other-ms")
		if i < 3 {
			uid = ms.UID
		}
		cached[i] = clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("m-%02d", i),
			Labels:          map[string]string{clusterv1.ClusterNameLabel: "c1", "pool": "a"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "MachineSet", Name: "x", UID: uid, Controller: new(true)}}},
			Spec: clusterv1.MachineSpec{ClusterName: "c1"}}
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
	s := &scope{ms: ms, selector: labels.SelectorFromSet(labels.Set{"pool": "a"})}

	got, err := r.getAndAdoptMachines(context.Background(), s, c)
	require.NoError(t, err)
	require.Contains(t, listOpts, client.UnsafeDisableDeepCopy)
	require.Len(t, got, 3)
	for _, m := range got {
		m.Labels["changed"] = "yes"
	}
	for i := range cached {
		require.NotContains(t, cached[i].Labels, "changed", "a returned Machine aliases the cache's %s", cached[i].Name)
	}
}
