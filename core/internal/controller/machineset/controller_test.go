package machineset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

func TestMachineSet_CreatesMachinesFromClonedTemplates(t *testing.T) {
	f := newFixture(t)
	ms := f.newMachineSet("workers", "web", 2)
	ms.Spec.Template.Annotations = map[string]string{"note": "from-template"}
	require.NoError(t, env.Client.Create(f.ctx, ms))

	machines := f.waitForOwned(ms, 2)
	for name, m := range machines {
		require.True(t, strings.HasPrefix(name, "workers-"), "Machine %s is named after its MachineSet", name)
		ref := metav1.GetControllerOf(m)
		require.Equal(t, "MachineSet", ref.Kind)
		require.Equal(t, map[string]string{
			"app": "web", clusterv1.MachineSetNameLabel: "workers", clusterv1.ClusterNameLabel: clusterName,
		}, m.Labels)
		require.Equal(t, "from-template", m.Annotations["note"])
		require.Equal(t, clusterName, m.Spec.ClusterName)
		require.Equal(t, "v1.37.2", m.Spec.Version)
		require.Equal(t, []string{clusterv1.MachineFinalizer}, m.Finalizers, "created with the Machine controller's finalizer: no write of it later")

		// The clones are named like the Machine, carry the template's spec and the Cluster's
		// label, and are created already controlled by the Machine: nobody patches them to adopt them.
		require.Equal(t, clusterv1.ContractVersionedObjectReference{
			APIGroup: crds.InfrastructureGroupVersion.Group, Kind: crds.GenericInfrastructureMachineGVK.Kind, Name: name,
		}, m.Spec.InfrastructureRef)
		require.Equal(t, clusterv1.ContractVersionedObjectReference{
			APIGroup: crds.BootstrapGroupVersion.Group, Kind: crds.GenericBootstrapConfigGVK.Kind, Name: name,
		}, m.Spec.Bootstrap.ConfigRef)
		infra := crds.New(crds.GenericInfrastructureMachineGVK, f.ns, name)
		bootstrap := crds.New(crds.GenericBootstrapConfigGVK, f.ns, name)
		for _, clone := range []client.Object{bootstrap, infra} { // created right after the Machine
			envtest.WaitFor(t, timeout, "the clones of "+name, func() (bool, error) {
				return true, env.Client.Get(f.ctx, client.ObjectKeyFromObject(clone), clone)
			})
		}
		image, _, _ := unstructured.NestedString(infra.Object, "spec", "image")
		require.Equal(t, "node:v1.37.2", image)
		require.Equal(t, "web", infra.GetLabels()["app"])
		owned := []metav1.OwnerReference{{
			APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine", Name: name, UID: m.UID,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}}
		require.Equal(t, owned, infra.GetOwnerReferences())
		require.Equal(t, clusterName, infra.GetLabels()[clusterv1.ClusterNameLabel])
		format, _, _ := unstructured.NestedString(bootstrap.Object, "spec", "format")
		require.Equal(t, "cloud-config", format)
		require.Equal(t, owned, bootstrap.GetOwnerReferences())
		require.Equal(t, clusterName, bootstrap.GetLabels()[clusterv1.ClusterNameLabel])
	}

	envtest.WaitFor(t, timeout, "status to count the Machines", func() (bool, error) {
		f.get(ms)
		return ptr.Deref(ms.Status.Replicas, -1) == 2 && ms.Status.Selector == webSelector &&
			ms.Status.ObservedGeneration == ms.Generation &&
			conditions.Get(ms, clusterv1.MachineSetScalingUpCondition) != nil &&
			conditions.Get(ms, clusterv1.MachineSetScalingUpCondition).Status == metav1.ConditionFalse, nil
	})
	require.Equal(t, int32(0), ptr.Deref(ms.Status.AvailableReplicas, -1))
	require.True(t, controllerutil.ContainsFinalizer(ms, clusterv1.MachineSetFinalizer))

	for name := range machines {
		f.makeHealthy(name)
	}
	envtest.WaitFor(t, timeout, "status to count ready and available Machines", func() (bool, error) {
		f.get(ms)
		return ptr.Deref(ms.Status.ReadyReplicas, -1) == 2 && ptr.Deref(ms.Status.AvailableReplicas, -1) == 2 &&
			ptr.Deref(ms.Status.UpToDateReplicas, -1) == 2, nil
	})
}

// webSelector is the status selector of a MachineSet selecting app=web: admission adds the
// cluster-name label to the selector.
const webSelector = "app=web," + clusterv1.ClusterNameLabel + "=" + clusterName

func TestMachineSet_ScaleSubresourceScalesLikeKubectlScale(t *testing.T) {
	f := newFixture(t)
	ms := f.newMachineSet("workers", "web", 1)
	require.NoError(t, env.Client.Create(f.ctx, ms))
	f.waitForOwned(ms, 1)

	scale := func(n int32) {
		t.Helper()
		s := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: n}}
		require.NoError(t, env.Client.SubResource("scale").Update(f.ctx, ms, client.WithSubResourceBody(s)))
	}
	scale(3)
	f.waitForOwned(ms, 3)
	envtest.WaitFor(t, timeout, "the scale subresource to report 3 replicas", func() (bool, error) {
		s := &autoscalingv1.Scale{}
		if err := env.Client.SubResource("scale").Get(f.ctx, ms, s); err != nil {
			return false, err
		}
		return s.Spec.Replicas == 3 && s.Status.Replicas == 3 && s.Status.Selector == webSelector, nil
	})

	scale(0)
	envtest.WaitFor(t, timeout, "all Machines to be deleted", func() (bool, error) {
		return len(f.ownedBy(ms)) == 0, nil
	})
}

func TestMachineSet_DeletesByPriorityThenDeletionOrder(t *testing.T) {
	// Five Machines: "oldest" and "newest" are healthy and differ only in age; "deleting" is
	// already being deleted, "marked" carries the delete-machine annotation, "no-node" has no
	// Node. Scaling from 5 to 1 must take deleting, marked and no-node first and then one of the
	// healthy ones, chosen by spec.deletion.order.
	tests := []struct {
		order     clusterv1.MachineSetDeletionOrder
		survivors []string // any one of these may survive
	}{
		{order: clusterv1.OldestMachineSetDeletionOrder, survivors: []string{"newest"}},
		{order: clusterv1.NewestMachineSetDeletionOrder, survivors: []string{"oldest"}},
		{order: clusterv1.RandomMachineSetDeletionOrder, survivors: []string{"oldest", "newest"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.order), func(t *testing.T) {
			f := newFixture(t)
			create := func(name string) {
				m := f.newMachine(name, "web")
				require.NoError(t, env.Client.Create(f.ctx, m))
			}
			create("oldest")
			waitForNextSecond(t) // creationTimestamp has a resolution of one second
			for _, name := range []string{"deleting", "marked", "no-node", "newest"} {
				create(name)
			}
			for _, name := range []string{"oldest", "deleting", "marked", "newest"} {
				f.makeHealthy(name)
			}
			f.updateMachine("marked", func(m *clusterv1.Machine) {
				m.Annotations = map[string]string{clusterv1.DeleteMachineAnnotation: "yes"}
			}, false)
			f.updateMachine("deleting", func(m *clusterv1.Machine) {
				controllerutil.AddFinalizer(m, holdFinalizer)
			}, false)

			ms := f.newMachineSet("workers", "web", 5)
			ms.Spec.Deletion.Order = tt.order
			require.NoError(t, env.Client.Create(f.ctx, ms))
			f.waitForOwned(ms, 5) // all five adopted, none created
			require.NoError(t, env.Client.Delete(f.ctx, f.machines()["deleting"]))

			f.update(ms, func() { ms.Spec.Replicas = ptr.To[int32](1) })
			left := f.waitForOwned(ms, 1)
			var survivor string
			for name := range left {
				survivor = name
			}
			require.Contains(t, tt.survivors, survivor)
			all := f.machines()
			require.Len(t, all, 2, "only the survivor and the held deleting Machine are left: %v", sortedKeys(all))
			require.NotNil(t, all["deleting"].DeletionTimestamp)
			f.waitForCondition(ms, clusterv1.MachineSetScalingDownCondition, metav1.ConditionTrue, "waiting for Machine deleting to be deleted")

			f.release("deleting")
			f.waitForCondition(ms, clusterv1.MachineSetScalingDownCondition, metav1.ConditionFalse, "")
			require.Len(t, f.machines(), 1, "no replacement for the deleted Machine: spec.replicas is 1")
		})
	}
}

func TestMachineSet_AdoptsMatchingOrphansAndReleasesMachinesItNoLongerSelects(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, env.Client.Create(f.ctx, f.newMachine("orphan", "web")))
	require.NoError(t, env.Client.Create(f.ctx, f.newMachine("other-app", "db")))

	ms := f.newMachineSet("workers", "web", 2)
	require.NoError(t, env.Client.Create(f.ctx, ms))
	owned := f.waitForOwned(ms, 2)
	require.Contains(t, owned, "orphan", "the matching orphan is adopted, so only one Machine is created")
	require.Nil(t, metav1.GetControllerOf(f.machines()["other-app"]), "a Machine the selector does not match is left alone")

	f.updateMachine("orphan", func(m *clusterv1.Machine) { m.Labels["app"] = "legacy" }, false)
	envtest.WaitFor(t, timeout, "the relabelled Machine to be released and replaced", func() (bool, error) {
		all := f.machines()
		owned := f.ownedBy(ms)
		_, stillOwned := owned["orphan"]
		return !stillOwned && len(all["orphan"].OwnerReferences) == 0 && len(owned) == 2, nil
	})
	require.Nil(t, f.machines()["orphan"].DeletionTimestamp, "a released Machine is not deleted")
}

func TestMachineSet_RemediatesMarkedMachinesWithinMaxInFlight(t *testing.T) {
	f := newFixture(t)
	// The owning MachineDeployment only provides maxInFlight and the current revision here: its
	// controller does not run in this test.
	md := &clusterv1.MachineDeployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "md", Annotations: map[string]string{clusterv1.RevisionAnnotation: "1"}},
		Spec: clusterv1.MachineDeploymentSpec{
			ClusterName: clusterName,
			Replicas:    ptr.To[int32](3),
			Selector:    clusterv1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template:    machineTemplate(map[string]string{"app": "web"}),
			Remediation: clusterv1.MachineDeploymentRemediationSpec{MaxInFlight: ptr.To(intstr.FromInt32(1))},
		},
	}
	require.NoError(t, env.Client.Create(f.ctx, md))
	ms := f.newMachineSet("md-rev1", "web", 3)
	ms.Annotations = map[string]string{clusterv1.RevisionAnnotation: "1"}
	ms.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: clusterv1.GroupVersion.String(), Kind: "MachineDeployment", Name: md.Name, UID: md.UID, Controller: ptr.To(true),
	}}
	require.NoError(t, env.Client.Create(f.ctx, ms))
	machines := sortedKeys(f.waitForOwned(ms, 3))
	for _, name := range machines {
		f.updateMachine(name, func(m *clusterv1.Machine) { controllerutil.AddFinalizer(m, holdFinalizer) }, false)
		f.makeHealthy(name)
	}
	envtest.WaitFor(t, timeout, "Machines of the current revision to be up to date", func() (bool, error) {
		for _, m := range f.ownedBy(ms) {
			if !conditions.IsTrue(m, clusterv1.MachineUpToDateCondition) {
				return false, nil
			}
		}
		return true, nil
	})

	// What a MachineHealthCheck does to an unhealthy Machine.
	markUnhealthy := func(name string) {
		f.updateMachine(name, func(m *clusterv1.Machine) {
			conditions.Set(m, conditions.False(clusterv1.MachineHealthCheckSucceededCondition, clusterv1.MachineHealthCheckUnhealthyNodeReason, "Node unhealthy"))
			conditions.Set(m, conditions.False(clusterv1.MachineOwnerRemediatedCondition, clusterv1.MachineOwnerRemediatedWaitingForRemediationReason, ""))
		}, true)
	}
	first, second := machines[0], machines[1]
	// maxInFlight is 1: on every Machine event, at most one Machine is being remediated (deleted).
	stopObserving := env.Observe(t, &clusterv1.MachineList{}, f.ns, func(all map[string]client.Object) error {
		var deletingNames []string
		for name, m := range all {
			if m.GetDeletionTimestamp() != nil {
				deletingNames = append(deletingNames, name)
			}
		}
		if len(deletingNames) > 1 {
			return fmt.Errorf("maxInFlight is 1, but Machines %v are being deleted at once", deletingNames)
		}
		return nil
	})
	markUnhealthy(first)
	markUnhealthy(second)

	var deletingOne string
	envtest.WaitFor(t, timeout, "one remediation to start and the other to be deferred", func() (bool, error) {
		all := f.machines()
		var deletingNames, deferred []string
		for _, name := range []string{first, second} {
			m := all[name]
			if !m.DeletionTimestamp.IsZero() {
				deletingNames = append(deletingNames, name)
			}
			if c := conditions.Get(m, clusterv1.MachineOwnerRemediatedCondition); c != nil && c.Reason == clusterv1.MachineSetMachineRemediationDeferredReason {
				deferred = append(deferred, name)
			}
		}
		if len(deletingNames) == 1 {
			deletingOne = deletingNames[0]
		}
		return len(deletingNames) == 1 && len(deferred) == 1 && deferred[0] != deletingOne, nil
	})
	f.waitForCondition(ms, clusterv1.MachineSetRemediatingCondition, metav1.ConditionTrue, "1 deferred")
	require.Len(t, f.ownedBy(ms), 3, "no replacement while the remediated Machine is still being deleted")

	// The first remediation completes; the deferred Machine goes next and the first is replaced.
	other := first
	if deletingOne == first {
		other = second
	}
	f.release(deletingOne)
	envtest.WaitFor(t, timeout, "the deferred remediation to start", func() (bool, error) {
		m, ok := f.machines()[other]
		return ok && !m.DeletionTimestamp.IsZero(), nil
	})
	f.release(other)
	f.waitForOwned(ms, 3)
	envtest.WaitFor(t, timeout, "remediation to end", func() (bool, error) {
		_, stillThere := f.machines()[other]
		return !stillThere, nil
	})
	f.waitForCondition(ms, clusterv1.MachineSetRemediatingCondition, metav1.ConditionFalse, "")

	// A MachineSet that is no longer the current revision does not remediate: its Machines go
	// with the rollout.
	f.update(md, func() { md.Annotations[clusterv1.RevisionAnnotation] = "2" })
	third := machines[2]
	markUnhealthy(third)
	envtest.WaitFor(t, timeout, "the Machine of an old revision to be marked as not remediable", func() (bool, error) {
		m := f.machines()[third]
		c := conditions.Get(m, clusterv1.MachineOwnerRemediatedCondition)
		up := conditions.Get(m, clusterv1.MachineUpToDateCondition)
		return c != nil && c.Reason == clusterv1.MachineSetMachineCannotBeRemediatedReason &&
			up != nil && up.Status == metav1.ConditionFalse, nil
	})
	require.True(t, f.machines()[third].DeletionTimestamp.IsZero())
	stopObserving() // before the fixture's cleanup deletes every Machine
}

func TestMachineSet_BackToBackReconcilesNeverDuplicateMachines(t *testing.T) {
	// The reconciler runs by hand, back to back, on a cache that cannot have caught up with
	// its own creations; a fresh reconciler stands for a restarted controller.
	f := newFixture(t, true)
	mgr := coretest.NewManager(t, env)
	coretest.IndexMachines(t, mgr)
	coretest.StandInForMachineController(t, mgr)
	coretest.StartManager(t, mgr)
	ms := f.newMachineSet("workers", "web", 3)
	require.NoError(t, env.Client.Create(f.ctx, ms))
	envtest.WaitFor(t, timeout, "the MachineSet in the cache", func() (bool, error) {
		return mgr.GetClient().Get(f.ctx, client.ObjectKeyFromObject(ms), &clusterv1.MachineSet{}) == nil, nil
	})

	for round := range 3 {
		r := &Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Recorder: events.New(mgr, ControllerName)}
		for range 5 {
			_, _ = r.Reconcile(f.ctx, request(ms)) // conflicts on a stale MachineSet are retried like the controller would
		}
		f.get(ms)
		require.True(t, controllerutil.ContainsFinalizer(ms, clusterv1.MachineSetFinalizer), "round %d", round)
		require.Len(t, f.ownedBy(ms), 3, "round %d", round)
	}
	// Scaling down on the same stale cache deletes exactly the surplus.
	f.update(ms, func() { ms.Spec.Replicas = ptr.To[int32](1) })
	r := &Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Recorder: events.New(mgr, ControllerName)}
	envtest.WaitFor(t, timeout, "scale down to one Machine", func() (bool, error) {
		_, _ = r.Reconcile(f.ctx, request(ms))
		return len(f.ownedBy(ms)) == 1, nil
	})
	for range 5 {
		_, _ = r.Reconcile(f.ctx, request(ms))
	}
	require.Len(t, f.ownedBy(ms), 1)
}

// TestMachineSet_DeletesTheMachineWhenACloneCannotBeCreated: the Machine is created first, then
// its clones; when the infrastructure machine cannot be created, the Machine is deleted again
// (its bootstrap config goes with it, owned by it), so a failed attempt leaves no Machine
// pointing at objects that will never exist.
func TestMachineSet_DeletesTheMachineWhenACloneCannotBeCreated(t *testing.T) {
	f := newFixture(t, true)
	mgr := coretest.NewManager(t, env)
	coretest.IndexMachines(t, mgr)
	coretest.StandInForMachineController(t, mgr)
	coretest.StartManager(t, mgr)
	r := &Reconciler{Client: infraCreateFails{mgr.GetClient()}, APIReader: mgr.GetAPIReader(), Recorder: events.New(mgr, ControllerName)}
	ms := f.newMachineSet("workers", "web", 1)
	require.NoError(t, env.Client.Create(f.ctx, ms))

	var lastErr error
	envtest.WaitFor(t, timeout, "the creation of the infrastructure machine to fail", func() (bool, error) {
		_, lastErr = r.Reconcile(f.ctx, request(ms))
		return lastErr != nil && strings.Contains(lastErr.Error(), "injected"), nil
	})
	envtest.WaitFor(t, timeout, "the Machine to be deleted again", func() (bool, error) {
		return len(f.machines()) == 0, nil
	})
	f.get(ms)
	c := conditions.Get(ms, clusterv1.MachineSetScalingUpCondition)
	require.NotNil(t, c)
	require.Contains(t, c.Message, "creating a Machine failed")
	failed := env.WaitForEvents(t, timeout, ms, ReasonFailedCreate, 1)
	require.Equal(t, "Warning", failed[0].Type)
	require.Contains(t, failed[0].Note, "injected")
}

// TestMachineSet_CreatesTheClonesOfAMachineThatReportsThemMissing plays a MachineSet killed
// between creating a Machine and its clones: the Machine refers to clones that do not exist and
// its controller reports so (after machine.CloneGracePeriod); the MachineSet creates them,
// controlled by the Machine.
func TestMachineSet_CreatesTheClonesOfAMachineThatReportsThemMissing(t *testing.T) {
	f := newFixture(t)
	ms := f.newMachineSet("workers", "web", 1)
	require.NoError(t, env.Client.Create(f.ctx, ms))
	name := sortedKeys(f.waitForOwned(ms, 1))[0]
	// The MachineSet creates the clones right after the Machine, so they may not exist yet.
	for _, gvk := range []schema.GroupVersionKind{crds.GenericBootstrapConfigGVK, crds.GenericInfrastructureMachineGVK} {
		obj := crds.New(gvk, f.ns, name)
		envtest.WaitFor(t, timeout, gvk.Kind+" to be created", func() (bool, error) {
			err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(obj), obj)
			return err == nil, client.IgnoreNotFound(err)
		})
		require.NoError(t, env.Client.Delete(f.ctx, obj))
	}
	f.updateMachine(name, func(m *clusterv1.Machine) {
		conditions.Set(m, conditions.False(clusterv1.MachineBootstrapConfigReadyCondition, clusterv1.MachineBootstrapConfigDoesNotExistReason, "gone"))
		conditions.Set(m, conditions.False(clusterv1.MachineInfrastructureReadyCondition, clusterv1.MachineInfrastructureDoesNotExistReason, "gone"))
	}, true)

	m := f.machines()[name]
	for _, gvk := range []schema.GroupVersionKind{crds.GenericBootstrapConfigGVK, crds.GenericInfrastructureMachineGVK} {
		obj := crds.New(gvk, f.ns, name)
		envtest.WaitFor(t, timeout, gvk.Kind+" to be created again", func() (bool, error) {
			err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(obj), obj)
			if apierrors.IsNotFound(err) {
				return false, nil // not yet: the MachineSet creates it once the Machine reports it missing
			}
			return err == nil && obj.GetDeletionTimestamp().IsZero(), err
		})
		ref := metav1.GetControllerOf(obj)
		require.NotNil(t, ref)
		require.Equal(t, m.UID, ref.UID, "%s is controlled by the Machine", gvk.Kind)
	}
}

func TestMachineSet_DeletionWaitsForItsMachinesThenRemovesTheFinalizer(t *testing.T) {
	f := newFixture(t)
	ms := f.newMachineSet("workers", "web", 2)
	require.NoError(t, env.Client.Create(f.ctx, ms))
	held := sortedKeys(f.waitForOwned(ms, 2))[0]
	f.updateMachine(held, func(m *clusterv1.Machine) { controllerutil.AddFinalizer(m, holdFinalizer) }, false)

	require.NoError(t, env.Client.Delete(f.ctx, ms))
	f.waitForCondition(ms, clusterv1.MachineSetDeletingCondition, metav1.ConditionTrue, "Waiting for Machine "+held+" to be deleted")
	envtest.WaitFor(t, timeout, "only the held Machine to be left", func() (bool, error) {
		all := f.machines()
		return len(all) == 1 && all[held] != nil && !all[held].DeletionTimestamp.IsZero(), nil
	})
	f.release(held)
	envtest.WaitFor(t, timeout, "the MachineSet to be gone", func() (bool, error) { return gone(f.ctx, ms) })
}

func TestMachineSet_PausedClusterStopsReconciliation(t *testing.T) {
	f := newFixture(t)
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: clusterName}}
	f.update(cluster, func() { cluster.Spec.Paused = ptr.To(true) })

	// While the Cluster is paused, no Machine appears: checked on every Machine event.
	stopObserving := env.Observe(t, &clusterv1.MachineList{}, f.ns, func(all map[string]client.Object) error {
		return fmt.Errorf("%d Machine(s) created while the Cluster is paused", len(all))
	})
	ms := f.newMachineSet("workers", "web", 2)
	require.NoError(t, env.Client.Create(f.ctx, ms))
	f.waitForCondition(ms, clusterv1.PausedCondition, metav1.ConditionTrue, "spec.paused")
	stopObserving()
	require.Empty(t, f.machines())

	f.update(cluster, func() { cluster.Spec.Paused = ptr.To(false) })
	f.waitForOwned(ms, 2)
	f.waitForCondition(ms, clusterv1.PausedCondition, metav1.ConditionFalse, "")
}

func TestMachineSet_PropagatesInPlaceFieldsWithoutReplacingMachines(t *testing.T) {
	f := newFixture(t)
	ms := f.newMachineSet("workers", "web", 2)
	require.NoError(t, env.Client.Create(f.ctx, ms))
	before := sortedKeys(f.waitForOwned(ms, 2))

	f.update(ms, func() {
		ms.Spec.Template.Labels["tier"] = "frontend"
		ms.Spec.Template.Spec.MinReadySeconds = ptr.To[int32](30)
	})
	envtest.WaitFor(t, timeout, "in-place fields on every Machine", func() (bool, error) {
		for _, m := range f.ownedBy(ms) {
			if m.Labels["tier"] != "frontend" || ptr.Deref(m.Spec.MinReadySeconds, 0) != 30 {
				return false, nil
			}
		}
		return true, nil
	})
	require.Equal(t, before, sortedKeys(f.ownedBy(ms)), "the same Machines, changed in place")
}

// infraCreateFails is a client whose creations of infrastructure machines fail.
type infraCreateFails struct{ client.Client }

func (c infraCreateFails) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if obj.GetObjectKind().GroupVersionKind().Kind == crds.GenericInfrastructureMachineGVK.Kind {
		return errors.New("injected: the API server rejected the infrastructure machine")
	}
	return c.Client.Create(ctx, obj, opts...)
}

// waitForNextSecond returns once the wall clock has entered a new second.
func waitForNextSecond(t *testing.T) {
	t.Helper()
	start := time.Now().Truncate(time.Second)
	envtest.WaitFor(t, 2*time.Second, "the next second", func() (bool, error) {
		return time.Now().Truncate(time.Second).After(start), nil
	})
}

func sortedKeys(m map[string]*clusterv1.Machine) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestMachineSet_LeavesANewMachinesUpToDateToItsFirstStatus: a Machine whose status the
// Machine controller has not written yet (no phase) gets no UpToDate write from the MachineSet
// (the Machine controller sets it with its first status); once it has a phase, the MachineSet
// maintains the condition. The reconcile that sets it on one Machine passes over the other.
func TestMachineSet_LeavesANewMachinesUpToDateToItsFirstStatus(t *testing.T) {
	f := newFixture(t, true)
	mgr := coretest.NewManager(t, env)
	coretest.IndexMachines(t, mgr)
	r := &Reconciler{Client: mgr.GetClient()}
	require.NoError(t, r.SetupWithManager(f.ctx, mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	coretest.StartManager(t, mgr)
	stop := env.Observe(t, &clusterv1.MachineList{}, f.ns, func(objs map[string]client.Object) error {
		for _, o := range objs {
			m := o.(*clusterv1.Machine)
			if m.Status.Phase == "" && conditions.Get(m, clusterv1.MachineUpToDateCondition) != nil {
				return fmt.Errorf("Machine %s got UpToDate before its first status", m.Name)
			}
		}
		return nil
	})
	ms := f.newMachineSet("workers", "web", 2)
	require.NoError(t, env.Client.Create(f.ctx, ms))
	names := sortedKeys(f.waitForOwned(ms, 2))
	f.updateMachine(names[0], func(m *clusterv1.Machine) { m.Status.Phase = string(clusterv1.MachinePhasePending) }, true)
	envtest.WaitFor(t, timeout, "the MachineSet to set UpToDate on the Machine with a status", func() (bool, error) {
		return conditions.IsTrue(f.machines()[names[0]], clusterv1.MachineUpToDateCondition), nil
	})
	stop()
	require.Nil(t, conditions.Get(f.machines()[names[1]], clusterv1.MachineUpToDateCondition))
}

// As upstream, a MachineSet no MachineDeployment controls makes its Cluster an owner of its
// templates, so that they go with the Cluster.
func TestMachineSet_StandaloneMakesTheClusterAnOwnerOfItsTemplates(t *testing.T) {
	f := newFixture(t)
	ms := f.newMachineSet("workers", "web", 1)
	require.NoError(t, env.Client.Create(f.ctx, ms))
	cluster := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: clusterName}, cluster))
	want := []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: clusterName, UID: cluster.UID}}
	for _, tmpl := range []*unstructured.Unstructured{
		crds.New(crds.GenericBootstrapConfigTemplateGVK, f.ns, "bootstrap"),
		crds.New(crds.GenericInfrastructureMachineTemplateGVK, f.ns, "infra"),
	} {
		envtest.WaitFor(t, timeout, "the Cluster to own "+tmpl.GetKind(), func() (bool, error) {
			err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(tmpl), tmpl)
			return len(tmpl.GetOwnerReferences()) > 0, err
		})
		require.Equal(t, want, tmpl.GetOwnerReferences())
	}
}
