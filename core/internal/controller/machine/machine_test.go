package machine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

func TestMachine_GoesPendingProvisioningProvisionedRunningAsProvidersProgress(t *testing.T) {
	startController(t)
	f := newFixture(t)
	ctx := context.Background()
	m, bootstrap, infra := f.newMachine(t, "m1", func(m *clusterv1.Machine) {
		m.Labels = map[string]string{"node-role.kubernetes.io/worker": "", "node.cluster.x-k8s.io/pool": "a", "app": "not-synced"}
	})

	got := waitPhase(t, m, clusterv1.MachinePhasePending)
	envtest.WaitFor(t, 30*time.Second, "finalizer and cluster-name label", func() (bool, error) {
		var err error
		got, err = getMachine(t, m)
		return err == nil && len(got.Finalizers) == 1 && got.Labels[clusterv1.ClusterNameLabel] == "c1", err
	})
	// The Machine adopted both provider objects as their controller.
	for _, obj := range []*unstructured.Unstructured{bootstrap, infra} {
		envtest.WaitFor(t, 30*time.Second, obj.GetKind()+" to be owned by the Machine", func() (bool, error) {
			cur := obj.DeepCopy()
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
				return false, err
			}
			owner := metav1.GetControllerOf(cur)
			return owner != nil && owner.UID == got.UID && cur.GetLabels()[clusterv1.ClusterNameLabel] == "c1", nil
		})
	}
	c := conditions.Get(got, clusterv1.MachineBootstrapConfigReadyCondition)
	require.NotNil(t, c)
	require.Contains(t, c.Message, "Waiting for GenericBootstrapConfig m1 to report status.initialization.dataSecretCreated")

	providerID := uniqueProviderID(f, "m1")
	coretest.SetStatus(t, env, bootstrap, map[string]any{
		"initialization.dataSecretCreated": true, "dataSecretName": "m1-data",
	})
	got = waitPhase(t, m, clusterv1.MachinePhaseProvisioning)
	require.Equal(t, "m1-data", ptr.Deref(got.Spec.Bootstrap.DataSecretName, ""))

	provision(t, bootstrap, infra, providerID)
	got = waitPhase(t, m, clusterv1.MachinePhaseProvisioned)
	require.Equal(t, providerID, got.Spec.ProviderID)
	require.Equal(t, clusterv1.MachineAddresses{{Type: clusterv1.MachineInternalIP, Address: "10.0.0.7"}}, got.Status.Addresses)
	require.Contains(t, conditions.Get(got, clusterv1.MachineNodeHealthyCondition).Message, "Waiting for a Node with spec.providerID "+providerID)

	nodeName := f.ns + "-m1"
	createNode(t, nodeName, providerID, func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{clusterv1.NodeUninitializedTaint}
	})
	got = waitPhase(t, m, clusterv1.MachinePhaseRunning)
	require.Equal(t, nodeName, got.Status.NodeRef.Name)
	// The Node's status (nodeInfo) is written after the Node is created, as a kubelet does.
	envtest.WaitFor(t, 30*time.Second, "nodeInfo copied from the Node", func() (bool, error) {
		got, err := getMachine(t, m)
		return err == nil && got.Status.NodeInfo.KubeletVersion == "v1.37.2", err
	})
	envtest.WaitFor(t, 30*time.Second, "Machine Ready and Available", func() (bool, error) {
		got, err := getMachine(t, m)
		return err == nil && conditions.IsTrue(got, clusterv1.MachineReadyCondition) && conditions.IsTrue(got, clusterv1.MachineAvailableCondition), err
	})
	envtest.WaitFor(t, 30*time.Second, "managed labels synced and the uninitialized taint removed", func() (bool, error) {
		n := &corev1.Node{}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: nodeName}, n); err != nil {
			return false, err
		}
		_, worker := n.Labels["node-role.kubernetes.io/worker"]
		_, app := n.Labels["app"]
		uninitialized := false
		for _, taint := range n.Spec.Taints { // the apiserver adds node.kubernetes.io/not-ready itself
			uninitialized = uninitialized || taint.MatchTaint(&clusterv1.NodeUninitializedTaint)
		}
		if worker && n.Labels["node.cluster.x-k8s.io/pool"] == "a" && !app && !uninitialized {
			return true, nil
		}
		return false, fmt.Errorf("labels %v, taints %v", n.Labels, n.Spec.Taints)
	})
}

func TestMachine_NodeDeletedMakesNodeHealthyFalse(t *testing.T) {
	startController(t)
	f := newFixture(t)
	m, bootstrap, infra := f.newMachine(t, "gone")
	providerID := uniqueProviderID(f, "gone")
	provision(t, bootstrap, infra, providerID)
	node := createNode(t, f.ns+"-gone", providerID)
	waitPhase(t, m, clusterv1.MachinePhaseRunning)

	require.NoError(t, env.Client.Delete(context.Background(), node))
	envtest.WaitFor(t, 30*time.Second, "NodeHealthy=False NodeDeleted", func() (bool, error) {
		got, err := getMachine(t, m)
		if err != nil {
			return false, err
		}
		c := conditions.Get(got, clusterv1.MachineNodeHealthyCondition)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == clusterv1.MachineNodeDeletedReason, nil
	})
}

func TestMachine_PausedClusterIsLeftAlone(t *testing.T) {
	startController(t)
	f := newFixture(t, func(c *clusterv1.Cluster) { c.Spec.Paused = ptr.To(true) })
	m, _, infra := f.newMachine(t, "paused")
	envtest.WaitFor(t, 30*time.Second, "Paused condition", func() (bool, error) {
		got, err := getMachine(t, m)
		return err == nil && conditions.IsTrue(got, clusterv1.PausedCondition), err
	})
	cur := infra.DeepCopy()
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(infra), cur))
	require.Empty(t, cur.GetOwnerReferences(), "a paused Machine does not adopt its infrastructure")
	got, err := getMachine(t, m)
	require.NoError(t, err)
	require.NotContains(t, got.Finalizers, clusterv1.MachineFinalizer, "nor add its finalizer")
}

func TestMachine_DrainEvictsPodsRespectsPDBThenTimesOut(t *testing.T) {
	startController(t)
	f := newFixture(t)
	ctx := context.Background()
	m, bootstrap, infra := f.newMachine(t, "drain", func(m *clusterv1.Machine) {
		m.Spec.Deletion.NodeDrainTimeoutSeconds = ptr.To[int32](8)
	})
	providerID := uniqueProviderID(f, "drain")
	provision(t, bootstrap, infra, providerID)
	nodeName := f.ns + "-drain"
	createNode(t, nodeName, providerID)
	waitPhase(t, m, clusterv1.MachinePhaseRunning)

	pod := func(name string, labels map[string]string, owner *metav1.OwnerReference) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns, Labels: labels},
			Spec: corev1.PodSpec{NodeName: nodeName, TerminationGracePeriodSeconds: ptr.To[int64](0),
				Containers: []corev1.Container{{Name: "c", Image: "example.invalid/app:1"}}},
		}
		if owner != nil {
			p.OwnerReferences = []metav1.OwnerReference{*owner}
		}
		require.NoError(t, env.Client.Create(ctx, p))
		return p
	}
	plain := pod("plain", nil, nil)
	guarded := pod("guarded", map[string]string{"app": "web"}, nil)
	// A healthy (Ready) pod: the eviction API only lets a PDB protect healthy pods.
	guarded.Status.Phase = corev1.PodRunning
	guarded.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	require.NoError(t, env.Client.Status().Update(ctx, guarded))
	daemon := pod("daemon", nil, &metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", UID: "d1", Controller: ptr.To(true)})
	minAvailable := intstr.FromInt32(1)
	require.NoError(t, env.Client.Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web-pdb", Namespace: f.ns},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}))

	require.NoError(t, env.Client.Delete(ctx, m))
	envtest.WaitFor(t, 30*time.Second, "the drain to report the PDB", func() (bool, error) {
		got, err := getMachine(t, m)
		if err != nil {
			return false, err
		}
		c := conditions.Get(got, clusterv1.MachineDeletingCondition)
		want := "cannot evict " + f.ns + "/guarded: Cannot evict pod as it would violate the pod's disruption budget. " +
			"The disruption budget web-pdb is still being processed by the server."
		if c == nil || c.Reason != clusterv1.MachineDeletingDrainingNodeReason || !strings.Contains(c.Message, want) {
			return false, fmt.Errorf("Deleting condition: %+v", c)
		}
		return true, nil
	})
	n := &corev1.Node{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: nodeName}, n))
	require.True(t, n.Spec.Unschedulable, "the Node is cordoned")
	envtest.WaitFor(t, 30*time.Second, "the unguarded pod to be evicted", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(plain), &corev1.Pod{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(guarded), &corev1.Pod{}), "the PDB keeps its pod")

	// After nodeDrainTimeoutSeconds the deletion goes on without the drain.
	envtest.WaitFor(t, 60*time.Second, "the Machine to be deleted after the drain timeout", func() (bool, error) {
		_, err := getMachine(t, m)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(daemon), &corev1.Pod{}), "DaemonSet pods are not evicted")
	for _, obj := range []*unstructured.Unstructured{infra, bootstrap} {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj.DeepCopy())
		require.True(t, apierrors.IsNotFound(err), "%s deleted with the Machine: %v", obj.GetKind(), err)
	}
	err := env.Client.Get(ctx, client.ObjectKey{Name: nodeName}, &corev1.Node{})
	require.True(t, apierrors.IsNotFound(err), "the Node is deleted after the infrastructure: %v", err)

	started := env.WaitForEvents(t, 30*time.Second, m, ReasonStartedDrainNode, 1)
	require.Contains(t, started[0].Note, nodeName)
	timedOut := env.WaitForEvents(t, 30*time.Second, m, ReasonTimedOutDrainNode, 1)
	require.Equal(t, "Warning", timedOut[0].Type)
	require.Contains(t, timedOut[0].Note, "timed out after 8s")
	succeeded, err := env.Events(ctx, m, ReasonSuccessfulDrainNode)
	require.NoError(t, err)
	require.Empty(t, succeeded, "a drain that timed out did not succeed")
}

func TestMachine_PreDrainHookHoldsDeletionUntilRemoved(t *testing.T) {
	startController(t)
	f := newFixture(t)
	ctx := context.Background()
	hook := clusterv1.PreDrainDeleteHookAnnotationPrefix + "/backup"
	m, _, infra := f.newMachine(t, "hooked", func(m *clusterv1.Machine) {
		m.Annotations = map[string]string{hook: "backup-operator"}
	})
	waitPhase(t, m, clusterv1.MachinePhasePending)
	require.NoError(t, env.Client.Delete(ctx, m))
	envtest.WaitFor(t, 30*time.Second, "the Deleting condition to name the hook", func() (bool, error) {
		got, err := getMachine(t, m)
		if err != nil {
			return false, err
		}
		c := conditions.Get(got, clusterv1.MachineDeletingCondition)
		return c != nil && c.Reason == clusterv1.MachineDeletingWaitingForPreDrainHookReason &&
			c.Message == "Waiting for pre-drain hooks to succeed (remove the annotations to proceed): "+hook, nil
	})
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(infra), infra.DeepCopy()), "nothing is deleted while the hook holds")

	envtest.Update(t, env.Client, m, func() { delete(m.Annotations, hook) })
	envtest.WaitFor(t, 30*time.Second, "the Machine to be gone", func() (bool, error) {
		_, err := getMachine(t, m)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}

func TestMachine_DeletionCompletesWhenProviderObjectsAreAlreadyGone(t *testing.T) {
	startController(t)
	f := newFixture(t)
	ctx := context.Background()
	m, bootstrap, infra := f.newMachine(t, "orphan")
	waitPhase(t, m, clusterv1.MachinePhasePending)
	// The provider objects vanish first (e.g. deleted by hand): reading them now
	// yields a wrapped NotFound, which must not block the Machine's deletion.
	require.NoError(t, env.Client.Delete(ctx, infra))
	require.NoError(t, env.Client.Delete(ctx, bootstrap))
	require.NoError(t, env.Client.Delete(ctx, m))
	envtest.WaitFor(t, 30*time.Second, "the Machine to be gone", func() (bool, error) {
		_, err := getMachine(t, m)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}

func TestMachine_MissingInfrastructureIsReportedWithTheFix(t *testing.T) {
	startController(t)
	f := newFixture(t)
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "typo", Namespace: f.ns},
		Spec: clusterv1.MachineSpec{
			ClusterName: "c1",
			Bootstrap:   clusterv1.Bootstrap{DataSecretName: ptr.To("user-data")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "GenericInfrastructureMachine", Name: "does-not-exist"},
		},
	}
	require.NoError(t, env.Client.Create(context.Background(), m))
	envtest.WaitFor(t, 30*time.Second, "InfrastructureReady to explain the missing object", func() (bool, error) {
		got, err := getMachine(t, m)
		if err != nil {
			return false, err
		}
		c := conditions.Get(got, clusterv1.MachineInfrastructureReadyCondition)
		b := conditions.Get(got, clusterv1.MachineBootstrapConfigReadyCondition)
		return c != nil && c.Message == "GenericInfrastructureMachine does-not-exist does not exist: create it, or fix spec.infrastructureRef" &&
			b != nil && b.Status == metav1.ConditionTrue, nil
	})
}

// TestMachine_DeletionWaitsForVolumesToDetach deletes two Machines whose Nodes still
// have volumes attached: the deletion waits, naming the volumes, until they detach
// (first Machine) or nodeVolumeDetachTimeoutSeconds passes (second Machine).
func TestMachine_DeletionWaitsForVolumesToDetach(t *testing.T) {
	startController(t)
	f := newFixture(t)
	ctx := context.Background()
	type target struct {
		m     *clusterv1.Machine
		infra *unstructured.Unstructured
		node  *corev1.Node
	}
	start := func(name string, timeoutSeconds int32) target {
		m, bootstrap, infra := f.newMachine(t, name, func(m *clusterv1.Machine) {
			m.Spec.Deletion.NodeVolumeDetachTimeoutSeconds = ptr.To(timeoutSeconds)
		})
		providerID := uniqueProviderID(f, name)
		provision(t, bootstrap, infra, providerID)
		node := createNode(t, f.ns+"-"+name, providerID)
		envtest.UpdateStatus(t, env.Client, node, func() {
			node.Status.VolumesAttached = []corev1.AttachedVolume{
				{Name: "kubernetes.io/csi/disk.csi.example^vol-b"}, {Name: "kubernetes.io/csi/disk.csi.example^vol-a"}}
		})
		waitPhase(t, m, clusterv1.MachinePhaseRunning)
		require.NoError(t, env.Client.Delete(ctx, m))
		envtest.WaitFor(t, 30*time.Second, name+" to wait for the volumes", func() (bool, error) {
			got, err := getMachine(t, m)
			if err != nil {
				return false, err
			}
			c := conditions.Get(got, clusterv1.MachineDeletingCondition)
			want := "Waiting for 2 volumes to detach from Node " + node.Name +
				": kubernetes.io/csi/disk.csi.example^vol-a, kubernetes.io/csi/disk.csi.example^vol-b"
			if c == nil || c.Reason != clusterv1.MachineDeletingWaitingForVolumeDetachReason || c.Message != want {
				return false, fmt.Errorf("Deleting condition: %+v", c)
			}
			return true, nil
		})
		return target{m: m, infra: infra, node: node}
	}
	gone := func(tg target, within time.Duration) {
		envtest.WaitFor(t, within, "Machine "+tg.m.Name+" to be deleted", func() (bool, error) {
			_, err := getMachine(t, tg.m)
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		})
	}

	detaching := start("detaching", 3600)
	timingOut := start("timing-out", 5)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(detaching.infra), detaching.infra.DeepCopy()),
		"the infrastructure stays while volumes are attached")

	envtest.UpdateStatus(t, env.Client, detaching.node, func() { detaching.node.Status.VolumesAttached = nil })
	gone(detaching, 30*time.Second)
	gone(timingOut, 60*time.Second)
}

// A Cluster without a control-plane provider is initialized by its first control-plane
// Machine with a Node (the Cluster controller's rule, as upstream): that Machine must find
// its Node before the Cluster is initialized, while workers still wait for it.
func TestMachine_ControlPlaneMachineWithoutControlPlaneProviderGetsItsNodeBeforeInitialization(t *testing.T) {
	startController(t)
	f := newFixture(t)
	envtest.UpdateStatus(t, env.Client, f.cluster, func() {
		f.cluster.Status.Initialization.ControlPlaneInitialized = ptr.To(false)
	})
	cp, bootstrap, infra := f.newMachine(t, "cp-0", func(m *clusterv1.Machine) {
		m.Labels = map[string]string{clusterv1.MachineControlPlaneLabel: ""}
	})
	provision(t, bootstrap, infra, uniqueProviderID(f, "cp-0"))
	node := createNode(t, f.ns+"-cp-0", uniqueProviderID(f, "cp-0"))
	got := waitPhase(t, cp, clusterv1.MachinePhaseRunning)
	require.Equal(t, node.Name, got.Status.NodeRef.Name)

	worker, bootstrap, infra := f.newMachine(t, "worker-0")
	provision(t, bootstrap, infra, uniqueProviderID(f, "worker-0"))
	createNode(t, f.ns+"-worker-0", uniqueProviderID(f, "worker-0"))
	got = waitPhase(t, worker, clusterv1.MachinePhaseProvisioned)
	require.Empty(t, got.Status.NodeRef.Name, "a worker waits for the control plane to be initialized")
}

// TestMachine_NewMachineWaitsQuietlyForTheObjectsItsCreatorIsCreating plays a MachineSet, which
// creates a Machine (with its finalizer) before the bootstrap config and infrastructure machine
// it references: the Machine's first reconcile finds them missing and writes nothing — never a
// DoesNotExist status to be corrected a moment later — and their creation, owned by the
// Machine, brings the reconcile that writes its first status.
func TestMachine_NewMachineWaitsQuietlyForTheObjectsItsCreatorIsCreating(t *testing.T) {
	var r *Reconciler
	startControllerWith(t, controllerOptions{reconciler: &r})
	f := newFixture(t)
	ctx := context.Background()
	stop := env.Observe(t, &clusterv1.MachineList{}, f.ns, func(objs map[string]client.Object) error {
		for _, o := range objs {
			for _, c := range o.(*clusterv1.Machine).Status.Conditions {
				if c.Reason == clusterv1.MachineBootstrapConfigDoesNotExistReason || c.Reason == clusterv1.MachineInfrastructureDoesNotExistReason {
					return fmt.Errorf("Machine %s reported %s %s: %s", o.GetName(), c.Type, c.Reason, c.Message)
				}
			}
		}
		return nil
	})
	creator := metav1.OwnerReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachineSet", Name: "workers",
		UID: "11111111-2222-3333-4444-555555555555", Controller: ptr.To(true)}
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "m1", Namespace: f.ns, Finalizers: []string{clusterv1.MachineFinalizer},
			OwnerReferences: []metav1.OwnerReference{creator}},
		Spec: clusterv1.MachineSpec{
			ClusterName: f.cluster.Name, Version: "v1.37.2",
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: crds.GenericBootstrapConfigGVK.Group, Kind: crds.GenericBootstrapConfigGVK.Kind, Name: "m1"}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: crds.GenericInfrastructureMachineGVK.Group, Kind: crds.GenericInfrastructureMachineGVK.Kind, Name: "m1"},
		},
	}
	require.NoError(t, env.Client.Create(ctx, m))
	// The reconcile looked for both (it watches their kinds from then on) and found neither.
	envtest.WaitFor(t, 30*time.Second, "the Machine's first reconcile to look for its objects", func() (bool, error) {
		return r.tracker.Watching(crds.GenericBootstrapConfigGVK.GroupKind()) && r.tracker.Watching(crds.GenericInfrastructureMachineGVK.GroupKind()), nil
	})
	byMachine := []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine", Name: "m1", UID: m.UID,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
	for _, gvk := range []schema.GroupVersionKind{crds.GenericBootstrapConfigGVK, crds.GenericInfrastructureMachineGVK} {
		obj := crds.New(gvk, f.ns, "m1")
		obj.SetOwnerReferences(byMachine)
		require.NoError(t, env.Client.Create(ctx, obj))
	}
	got := waitPhase(t, m, clusterv1.MachinePhasePending)
	require.Contains(t, conditions.Get(got, clusterv1.MachineBootstrapConfigReadyCondition).Message, "to report status.initialization.dataSecretCreated")
	stop()
}

// TestMachine_FirstStatusCarriesTheMachineSetsUpToDate: a new Machine of a (standalone)
// MachineSet gets its UpToDate condition with its first status write, computed as the
// MachineSet does, with no MachineSet controller running.
func TestMachine_FirstStatusCarriesTheMachineSetsUpToDate(t *testing.T) {
	startController(t)
	f := newFixture(t)
	ctx := context.Background()
	ms := &clusterv1.MachineSet{
		ObjectMeta: metav1.ObjectMeta{Name: "workers", Namespace: f.ns},
		Spec: clusterv1.MachineSetSpec{
			ClusterName: f.cluster.Name, Replicas: ptr.To[int32](1),
			Selector: clusterv1.LabelSelector{MatchLabels: map[string]string{"pool": "workers"}},
			Template: clusterv1.MachineTemplateSpec{
				ObjectMeta: clusterv1.ObjectMeta{Labels: map[string]string{"pool": "workers"}},
				Spec: clusterv1.MachineSpec{ClusterName: f.cluster.Name, Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To("data")},
					InfrastructureRef: clusterv1.ContractVersionedObjectReference{
						APIGroup: crds.GenericInfrastructureMachineTemplateGVK.Group, Kind: crds.GenericInfrastructureMachineTemplateGVK.Kind, Name: "workers"}},
			},
		},
	}
	require.NoError(t, env.Client.Create(ctx, ms))
	m, _, _ := f.newMachine(t, "m1", func(m *clusterv1.Machine) {
		m.Labels = map[string]string{"pool": "workers"}
		m.OwnerReferences = []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachineSet",
			Name: ms.Name, UID: ms.UID, Controller: ptr.To(true)}}
	})
	got := waitPhase(t, m, clusterv1.MachinePhasePending)
	c := conditions.Get(got, clusterv1.MachineUpToDateCondition)
	require.NotNil(t, c, "the first status carries UpToDate")
	require.Equal(t, metav1.ConditionTrue, c.Status)
}
