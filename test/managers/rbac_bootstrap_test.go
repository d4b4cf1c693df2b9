package managers

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/secret"
	"capstan.dev/contracts/testing/crds"
)

var kubeadmConfigGVK = schema.GroupVersionKind{Group: "bootstrap.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmConfig"}

// TestBootstrapManager_RunsOnItsGeneratedRBACAlone runs the kubeadm bootstrap manager
// as a user holding only its generated config/rbac, and has it bootstrap the first
// control-plane Machine of a Cluster: cluster certificates, the init lock and the data
// Secret all need permissions, so a missing one leaves the KubeadmConfig without data.
func TestBootstrapManager_RunsOnItsGeneratedRBACAlone(t *testing.T) {
	ctx := context.Background()
	p := providers[1]
	ensureNamespace(t, p.namespace)
	const user = "capstan-bootstrap-manager"
	applyRBAC(t, "../../bootstrap-kubeadm/config/rbac", p.namespace, user)
	cfg, err := env.AddUser(user)
	require.NoError(t, err)
	mp := startManager(t, buildManager(t, p), writeKubeconfig(t, cfg))
	envtest.WaitFor(t, 60*time.Second, "the bootstrap manager to lead", func() (bool, error) {
		h, err := holder(p)
		return h != "", err
	})

	ns := env.CreateNamespace(t, "rbac-bootstrap")
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns},
		Spec: clusterv1.ClusterSpec{ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: "10.0.0.1", Port: 6443},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, "c1")}}
	require.NoError(t, env.Client.Create(ctx, cluster))
	envtest.UpdateStatus(t, env.Client, cluster, func() {
		cluster.Status.Initialization.InfrastructureProvisioned = ptr.To(true) // as an infrastructure provider would
	})
	machine := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "cp-0", Namespace: ns,
			Labels: map[string]string{clusterv1.ClusterNameLabel: "c1", clusterv1.MachineControlPlaneLabel: ""}},
		Spec: clusterv1.MachineSpec{ClusterName: "c1", Version: "v1.37.2",
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: kubeadmConfigGVK.Group, Kind: kubeadmConfigGVK.Kind, Name: "cp-0"}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DockerMachine", Name: "cp-0"}},
	}
	require.NoError(t, env.Client.Create(ctx, machine))
	// The KubeadmConfig as the core's Machine controller leaves it: labelled and controlled by the Machine.
	kc := &unstructured.Unstructured{}
	kc.SetGroupVersionKind(kubeadmConfigGVK)
	kc.SetNamespace(ns)
	kc.SetName("cp-0")
	kc.SetLabels(map[string]string{clusterv1.ClusterNameLabel: "c1"})
	kc.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine",
		Name: machine.Name, UID: machine.UID, Controller: ptr.To(true)}})
	require.NoError(t, unstructured.SetNestedStringSlice(kc.Object, []string{"echo rbac-test"}, "spec", "preKubeadmCommands"))
	require.NoError(t, env.Client.Create(ctx, kc))

	envtest.WaitFor(t, 60*time.Second, "the KubeadmConfig's data Secret", func() (bool, error) {
		cur := kc.DeepCopy()
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(kc), cur); err != nil {
			return false, err
		}
		name, _, _ := unstructured.NestedString(cur.Object, "status", "dataSecretName")
		if name == "" {
			return false, nil
		}
		return true, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &corev1.Secret{})
	})
	for _, purpose := range secret.CertificatePurposes {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: secret.Name("c1", purpose)}, &corev1.Secret{}),
			"the %s certificate Secret", purpose)
	}
	require.NoError(t, mp.stop(t))
	requireNoRBACDenial(t, mp.logPath)
}
