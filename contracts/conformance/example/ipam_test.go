package example_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	ipamv1 "capstan.dev/contracts/api/ipam/v1beta2"
	infrav1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha1"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/ipamprovider"
)

// TestExampleMachine_ClaimsItsAddressesFromAnIPAMPool is section 6 of docs/provider-guide.md run
// against a real IPAM provider (contracts/testing/ipamprovider): two machines take the two
// addresses of a pool and report them as InternalIP, a third waits with the pool's exhaustion in
// AddressesClaimed (and is not provisioned), and deleting the first releases its claim before the
// machine goes, after which the third gets the freed address.
func TestExampleMachine_ClaimsItsAddressesFromAnIPAMPool(t *testing.T) {
	ctx := context.Background()
	filter := startProvider(t, nil)
	mgr := env.NewManager(t, "ipam-"+filter, env.Config)
	ipam := &ipamprovider.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader()}
	require.NoError(t, ipam.SetupWithManager(mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	envtest.StartManager(t, mgr)

	ns := env.CreateNamespace(t, "ipam")
	require.NoError(t, env.Client.Create(ctx, ipamprovider.NewPool(ns, "workers", []string{"10.0.0.10-10.0.0.11"}, 24, "10.0.0.1")))
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c1", Labels: map[string]string{clusterv1.WatchLabel: filter}},
		Spec: clusterv1.ClusterSpec{ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: "10.0.0.1", Port: 6443},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "ExampleCluster", Name: "c1"}}}
	require.NoError(t, env.Client.Create(ctx, cluster))
	cluster.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	require.NoError(t, env.Client.Status().Update(ctx, cluster))

	newMachine := func(name string) *infrav1.ExampleMachine {
		m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{clusterv1.WatchLabel: filter}},
			Spec: clusterv1.MachineSpec{ClusterName: "c1", Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To("data")},
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "ExampleMachine", Name: name}}}
		require.NoError(t, env.Client.Create(ctx, m))
		em := &infrav1.ExampleMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
			Labels:          map[string]string{clusterv1.WatchLabel: filter, clusterv1.ClusterNameLabel: "c1"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine", Name: name, UID: m.UID}}},
			Spec: infrav1.ExampleMachineSpec{AddressesFromPools: []ipamv1.IPPoolReference{ipamprovider.PoolRef("workers")}}}
		require.NoError(t, env.Client.Create(ctx, em))
		return em
	}
	internalIP := func(em *infrav1.ExampleMachine) string {
		for _, a := range em.Status.Addresses {
			if a.Type == clusterv1.MachineInternalIP {
				return a.Address
			}
		}
		return ""
	}
	waitForIP := func(name string) string {
		em := &infrav1.ExampleMachine{}
		envtest.WaitFor(t, 30e9, "ExampleMachine "+name+" to report its claimed address", func() (bool, error) {
			err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, em)
			return err == nil && ptr.Deref(em.Status.Initialization.Provisioned, false) && internalIP(em) != "", err
		})
		return internalIP(em)
	}

	newMachine("m1")
	newMachine("m2")
	got := []string{waitForIP("m1"), waitForIP("m2")}
	slices.Sort(got)
	require.Equal(t, []string{"10.0.0.10", "10.0.0.11"}, got, "each machine its own address of the pool")
	claim := &ipamv1.IPAddressClaim{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "m1-0"}, claim))
	require.Equal(t, "c1", claim.Labels[clusterv1.ClusterNameLabel])
	require.Equal(t, "c1", claim.Spec.ClusterName)
	require.Equal(t, "m1", metav1.GetControllerOf(claim).Name, "the claim is owned by its machine")

	newMachine("m3")
	em3 := &infrav1.ExampleMachine{}
	envtest.WaitFor(t, 30e9, "m3 to say the pool is exhausted", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "m3"}, em3)
		cond := meta.FindStatusCondition(em3.Status.Conditions, infrav1.AddressesClaimedCondition)
		return err == nil && cond != nil && cond.Status == metav1.ConditionFalse &&
			strings.Contains(cond.Message, "m3-0: TestIPPool "+ns+"/workers is exhausted"), err
	})
	require.False(t, ptr.Deref(em3.Status.Initialization.Provisioned, false), "no machine without its address")

	ip1 := waitForIP("m1")
	require.NoError(t, env.Client.Delete(ctx, &infrav1.ExampleMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m1"}}))
	envtest.WaitFor(t, 30e9, "m1 and its claim to be gone", func() (bool, error) {
		errM := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "m1"}, &infrav1.ExampleMachine{})
		errC := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "m1-0"}, &ipamv1.IPAddressClaim{})
		return client.IgnoreNotFound(errM) == nil && errM != nil && errC != nil, client.IgnoreNotFound(errC)
	})
	require.Equal(t, ip1, waitForIP("m3"), "the released address goes to the machine that waited")
}
