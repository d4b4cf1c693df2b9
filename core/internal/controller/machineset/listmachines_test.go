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
	"capstan.dev/core/internal/coretest"
)

// cachedMachines reads the cache without its deep copy: it must copy the Machines it returns,
// so nothing it returns aliases the cache.
func TestCachedMachines_CopiesTheMachineSetsOwnMachinesOutOfTheCache(t *testing.T) {
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

	got, err := r.cachedMachines(context.Background(), s)
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

// cachedMachines reads only the MachineSet's own Machines and its Cluster's orphans, through the
// cache's controller index: a reconcile must not walk every Machine of a large Cluster (it did,
// and a rollout of 1,000 Machines spent a sixth of the core's CPU there). It still adopts the
// orphan its selector matches and leaves the other Cluster's orphan alone.
func TestCachedMachines_ReadsOnlyItsOwnAndTheClustersOrphansThroughTheIndex(t *testing.T) {
	ms := &clusterv1.MachineSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ms", UID: "ms-uid"},
		Spec: clusterv1.MachineSetSpec{ClusterName: "c1"}}
	machine := func(name, cluster string, owner types.UID) client.Object {
		m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name,
			Labels: map[string]string{clusterv1.ClusterNameLabel: cluster, "pool": "a"}},
			Spec: clusterv1.MachineSpec{ClusterName: cluster}}
		if owner != "" {
			m.OwnerReferences = []metav1.OwnerReference{{Kind: "MachineSet", Name: "x", UID: owner, Controller: new(true)}}
		}
		return m
	}
	var objs []client.Object
	for i := range 40 {
		objs = append(objs, machine(fmt.Sprintf("other-%02d", i), "c1", types.UID(fmt.Sprintf("other-ms-%d", i%4))))
	}
	objs = append(objs, machine("own-0", "c1", ms.UID), machine("own-1", "c1", ms.UID),
		machine("orphan", "c1", ""), machine("orphan-of-c2", "c2", ""))
	c, listed := coretest.IndexedFakeClient(t, objs...)
	r := &Reconciler{Client: c}
	s := &scope{ms: ms, selector: labels.SelectorFromSet(labels.Set{"pool": "a"})}

	got, err := r.cachedMachines(context.Background(), s)
	require.NoError(t, err)
	var names []string
	for _, m := range got {
		names = append(names, m.Name)
	}
	require.Equal(t, []string{"orphan", "own-0", "own-1"}, names)
	require.Equal(t, 3, *listed, "Machines read from the cache: only its own two and its Cluster's orphan")
	adopted := &clusterv1.Machine{}
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "orphan"}, adopted))
	require.Equal(t, ms.UID, metav1.GetControllerOf(adopted).UID)
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
