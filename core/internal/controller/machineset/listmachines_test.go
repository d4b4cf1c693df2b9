package machineset

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
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

	got, err := r.getAndAdoptMachines(context.Background(), s, c, nil)
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

// The scaling decision reads the Machines from the API server: it must ask for only those the
// MachineSet's selector matches (in its Cluster), not every Machine of the Cluster, and still
// count its own Machines that were relabelled while being deleted.
func TestLiveMachines_AsksOnlyForTheSelectorsMachinesAndKeepsDeletingOnes(t *testing.T) {
	ms := &clusterv1.MachineSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ms", UID: "ms-uid"},
		Spec: clusterv1.MachineSetSpec{ClusterName: "c1"}}
	machine := func(name, pool string, owner types.UID) *clusterv1.Machine {
		m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name,
			Labels: map[string]string{clusterv1.ClusterNameLabel: "c1", "pool": pool}},
			Spec: clusterv1.MachineSpec{ClusterName: "c1"}}
		if owner != "" {
			m.OwnerReferences = []metav1.OwnerReference{{Kind: "MachineSet", Name: "x", UID: owner, Controller: new(true)}}
		}
		return m
	}
	var objs []client.Object
	for i := range 3 {
		objs = append(objs, machine(fmt.Sprintf("own-%d", i), "a", ms.UID))
		objs = append(objs, machine(fmt.Sprintf("other-%d", i), "b", "other-ms"))
	}
	objs = append(objs, machine("orphan", "a", ""))
	scheme := runtime.NewScheme()
	require.NoError(t, clusterv1.AddToScheme(scheme))
	var selectors []string
	c := interceptor.NewClient(fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build(), interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			lo := (&client.ListOptions{}).ApplyOptions(opts)
			selectors = append(selectors, lo.LabelSelector.String())
			return c.List(ctx, list, opts...)
		},
	})
	relabelled := machine("own-relabelled", "gone", ms.UID)
	relabelled.UID, relabelled.DeletionTimestamp = "relabelled-uid", &metav1.Time{Time: time.Now()}
	r := &Reconciler{Client: c, APIReader: c}
	s := &scope{ms: ms, selector: labels.SelectorFromSet(labels.Set{"pool": "a"}), machines: []*clusterv1.Machine{relabelled}}

	got, err := r.liveMachines(context.Background(), s)
	require.NoError(t, err)
	require.Equal(t, []string{clusterv1.ClusterNameLabel + "=c1,pool=a"}, selectors)
	var names []string
	for _, m := range got {
		names = append(names, m.Name)
	}
	require.Equal(t, []string{"orphan", "own-0", "own-1", "own-2", "own-relabelled"}, names)
}
