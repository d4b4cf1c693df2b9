package provider

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

var env *envtest.Environment

func TestMain(m *testing.M) {
	os.Exit(envtest.Run(m, envtest.Options{CRDs: crds.All()}, &env))
}

// startProvider runs the provider with delay as its own user, handing out a
// kubeconfig of another user as the workload cluster's; it returns that kubeconfig.
func startProvider(t *testing.T, delay time.Duration) []byte {
	t.Helper()
	workload, err := env.AddUserKubeconfig("scale-workload", "system:masters")
	require.NoError(t, err)
	cfg, err := env.AddUser("scale-provider", "system:masters")
	require.NoError(t, err)
	mgr := env.NewManager(t, "scale-provider", cfg)
	require.NoError(t, SetupWithManager(mgr, Options{ProvisionDelay: delay, WorkloadKubeconfig: workload}))
	envtest.StartManager(t, mgr)
	return workload
}

// createOwned makes a generic object owned by a core object of ownerKind, as the core
// leaves it after adoption.
func createOwned(t *testing.T, gvk schema.GroupVersionKind, ownerKind string, owner client.Object, name string) *unstructured.Unstructured {
	t.Helper()
	obj := crds.New(gvk, owner.GetNamespace(), name)
	obj.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(),
		Kind: ownerKind, Name: owner.GetName(), UID: owner.GetUID()}})
	require.NoError(t, unstructured.SetNestedMap(obj.Object, map[string]any{}, "spec"))
	require.NoError(t, env.Client.Create(context.Background(), obj))
	return obj
}

func waitForBool(t *testing.T, obj *unstructured.Unstructured, field contract.BoolField) {
	t.Helper()
	envtest.WaitFor(t, 30*time.Second, fmt.Sprintf("%s %s to report %s", obj.GetKind(), obj.GetName(), field), func() (bool, error) {
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return false, err
		}
		v, err := field.Get(obj)
		return err == nil && *v, err
	})
}

func TestScaleProvider_ProvisionsClusterAndMachineAndRegistersAReadyNode(t *testing.T) {
	workload := startProvider(t, 0)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "scale")

	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: ns},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: crds.InfrastructureGroupVersion.Group, Kind: crds.GenericInfrastructureClusterGVK.Kind, Name: "bench"}}}
	require.NoError(t, env.Client.Create(ctx, c))
	infraCluster := createOwned(t, crds.GenericInfrastructureClusterGVK, "Cluster", c, "bench")
	waitForBool(t, infraCluster, contract.InfrastructureCluster().Provisioned(contract.V1Beta2))
	endpoint, err := contract.InfrastructureCluster().ControlPlaneEndpoint().Get(infraCluster)
	require.NoError(t, err)
	require.Equal(t, strings.TrimSuffix(env.Config.Host, "/"), fmt.Sprintf("https://%s:%d", endpoint.Host, endpoint.Port), "the endpoint is the workload API server")
	kubeconfig := &corev1.Secret{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "bench-kubeconfig"}, kubeconfig),
		"the kubeconfig Secret exists before the InfraCluster reports provisioned")
	require.Equal(t, workload, kubeconfig.Data["value"])
	require.Equal(t, clusterv1.ClusterSecretType, kubeconfig.Type)
	require.Equal(t, "bench", kubeconfig.Labels[clusterv1.ClusterNameLabel])
	require.Equal(t, c.UID, kubeconfig.OwnerReferences[0].UID)

	controlPlane := createOwned(t, crds.GenericControlPlaneGVK, "Cluster", c, "bench")
	waitForBool(t, controlPlane, contract.ControlPlane().Initialized(contract.V1Beta2))

	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Namespace: ns},
		Spec: clusterv1.MachineSpec{ClusterName: "bench", Version: "v1.37.2",
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: crds.BootstrapGroupVersion.Group, Kind: crds.GenericBootstrapConfigGVK.Kind, Name: "worker-0"}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: crds.InfrastructureGroupVersion.Group, Kind: crds.GenericInfrastructureMachineGVK.Kind, Name: "worker-0"}}}
	require.NoError(t, env.Client.Create(ctx, m))
	config := createOwned(t, crds.GenericBootstrapConfigGVK, "Machine", m, "worker-0")
	waitForBool(t, config, contract.Bootstrap().DataSecretCreated(contract.V1Beta2))
	name, err := contract.Bootstrap().DataSecretName().Get(config)
	require.NoError(t, err)
	require.Equal(t, "worker-0", *name)

	// The InfraMachine waits for the Machine's bootstrap data, as the contract says:
	// another one created after it, whose Machine has data, is provisioned first.
	infraMachine := createOwned(t, crds.GenericInfrastructureMachineGVK, "Machine", m, "worker-0")
	other := m.DeepCopy()
	other.ResourceVersion, other.Name, other.Spec.Bootstrap = "", "worker-1", clusterv1.Bootstrap{DataSecretName: ptr.To("data")}
	other.Spec.InfrastructureRef.Name = "worker-1"
	require.NoError(t, env.Client.Create(ctx, other))
	waitForBool(t, createOwned(t, crds.GenericInfrastructureMachineGVK, "Machine", other, "worker-1"),
		contract.InfrastructureMachine().Provisioned(contract.V1Beta2))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(infraMachine), infraMachine))
	_, err = contract.InfrastructureMachine().Provisioned(contract.V1Beta2).Get(infraMachine)
	require.ErrorIs(t, err, contract.ErrFieldNotFound, "provisioned before the Machine had bootstrap data")
	require.True(t, apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKey{Name: ns + "-worker-0"}, &corev1.Node{})),
		"Node registered before the Machine had bootstrap data")

	envtest.Update(t, env.Client, m, func() { m.Spec.Bootstrap.DataSecretName = ptr.To(*name) })
	waitForBool(t, infraMachine, contract.InfrastructureMachine().Provisioned(contract.V1Beta2))
	providerID, err := contract.InfrastructureMachine().ProviderID().Get(infraMachine)
	require.NoError(t, err)
	require.Equal(t, "scale:///"+ns+"/worker-0", *providerID)
	addresses, err := contract.InfrastructureMachine().Addresses().Get(infraMachine)
	require.NoError(t, err)
	require.Len(t, addresses, 2)

	node := &corev1.Node{}
	envtest.WaitFor(t, 30*time.Second, "the Node", func() (bool, error) {
		return true, env.Client.Get(ctx, client.ObjectKey{Name: ns + "-worker-0"}, node)
	})
	require.Equal(t, *providerID, node.Spec.ProviderID)
	require.Equal(t, ns, node.Labels[NodeLabel])
	require.Equal(t, "v1.37.2", node.Status.NodeInfo.KubeletVersion, "the kubelet runs the Machine's version")
	ready := false
	for _, cond := range node.Status.Conditions {
		ready = ready || (cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue)
	}
	require.True(t, ready, "the Node is registered Ready in one create: %+v", node.Status.Conditions)
}

func TestScaleProvider_ProvisionsOnlyAfterTheDelay(t *testing.T) {
	const delay = 3 * time.Second
	startProvider(t, delay)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "delay")
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: ns},
		Spec: clusterv1.MachineSpec{ClusterName: "c", Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To("data")}, InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: crds.InfrastructureGroupVersion.Group, Kind: crds.GenericInfrastructureMachineGVK.Kind, Name: "m"}}}
	require.NoError(t, env.Client.Create(ctx, m))

	var list unstructured.UnstructuredList
	list.SetGroupVersionKind(crds.GenericBootstrapConfigGVK.GroupVersion().WithKind("GenericBootstrapConfigList"))
	stop := env.Observe(t, &list, ns, func(objs map[string]client.Object) error {
		for _, o := range objs {
			u := o.(*unstructured.Unstructured)
			created, _ := contract.Bootstrap().DataSecretCreated(contract.V1Beta2).Get(u)
			// creationTimestamp is truncated to the second, so this is the earliest
			// moment the delay may have passed.
			if created != nil && *created && time.Now().Before(u.GetCreationTimestamp().Add(delay)) {
				return fmt.Errorf("%s reported its data %s after its creation (delay %s)",
					u.GetName(), time.Since(u.GetCreationTimestamp().Time), delay)
			}
		}
		return nil
	})
	config := createOwned(t, crds.GenericBootstrapConfigGVK, "Machine", m, "m")
	waitForBool(t, config, contract.Bootstrap().DataSecretCreated(contract.V1Beta2))
	stop()
}
