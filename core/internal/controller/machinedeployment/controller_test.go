package machinedeployment

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// TestMachineDeployment_RollingUpdateNeverDropsBelowDesiredAvailable changes the template and
// follows every Machine event of the rollout through a watch, playing the Machine controller
// (each new Machine becomes available) and checking at every observed step that the available
// Machines never drop below spec.replicas - maxUnavailable and that the Machines never exceed
// spec.replicas + maxSurge.
func TestMachineDeployment_RollingUpdateNeverDropsBelowDesiredAvailable(t *testing.T) {
	tests := []struct {
		name                  string
		replicas              int32
		maxSurge, maxUnavail  intstr.IntOrString
		minAvailable, maxSize int
	}{
		{name: "surge 1, unavailable 0", replicas: 3, maxSurge: intstr.FromInt32(1), maxUnavail: intstr.FromInt32(0), minAvailable: 3, maxSize: 4},
		// 50% of 4: surge rounds up to 2 but is 0 here; unavailable rounds down to 2.
		{name: "surge 0, unavailable 50%", replicas: 4, maxSurge: intstr.FromInt32(0), maxUnavail: intstr.FromString("50%"), minAvailable: 2, maxSize: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			md := f.newMachineDeployment("workers", tt.replicas)
			md.Spec.Rollout.Strategy = clusterv1.MachineDeploymentRolloutStrategy{
				Type: clusterv1.RollingUpdateMachineDeploymentStrategyType,
				RollingUpdate: clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{
					MaxSurge: ptr.To(tt.maxSurge), MaxUnavailable: ptr.To(tt.maxUnavail),
				},
			}
			require.NoError(t, env.Client.Create(f.ctx, md))
			oldMS, _ := f.waitForAvailable(md, int(tt.replicas))
			f.get(md)
			require.Equal(t, "1", md.Annotations[clusterv1.RevisionAnnotation])

			// Watch from the exact state listed, so that no event is missed.
			list := &clusterv1.MachineList{}
			require.NoError(t, env.Client.List(f.ctx, list, client.InNamespace(f.ns)))
			world := map[string]*clusterv1.Machine{}
			for i := range list.Items {
				world[list.Items[i].Name] = &list.Items[i]
			}
			w, err := env.Client.Watch(f.ctx, &clusterv1.MachineList{}, client.InNamespace(f.ns),
				&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}})
			require.NoError(t, err)
			defer w.Stop()

			f.update(md, func() { md.Spec.Template.Spec.Version = "v1.37.3" })

			var newMS string
			steps := 0
			deadline := time.After(timeout)
			for done := false; !done; {
				select {
				case <-deadline:
					t.Fatalf("rollout did not complete within %s; Machines: %v", timeout, describe(world))
				case ev, ok := <-w.ResultChan():
					require.True(t, ok, "the watch ended")
					m, isMachine := ev.Object.(*clusterv1.Machine)
					require.True(t, isMachine, "unexpected watch event %s %T", ev.Type, ev.Object)
					switch ev.Type {
					case watch.Added, watch.Modified:
						world[m.Name] = m
					case watch.Deleted:
						delete(world, m.Name)
					}
					steps++
					available, size := 0, 0
					for _, wm := range world {
						if wm.DeletionTimestamp.IsZero() {
							size++
							if conditions.IsTrue(wm, clusterv1.MachineAvailableCondition) {
								available++
							}
						}
					}
					require.GreaterOrEqual(t, available, tt.minAvailable, "available Machines after event %d (%s %s): %v", steps, ev.Type, m.Name, describe(world))
					require.LessOrEqual(t, size, tt.maxSize, "Machines after event %d (%s %s): %v", steps, ev.Type, m.Name, describe(world))

					if ev.Type == watch.Added {
						f.makeAvailable(m.Name) // the Machine controller's part
						if set := m.Labels[clusterv1.MachineSetNameLabel]; set != oldMS {
							newMS = set
						}
					}
					done = newMS != "" && len(world) == int(tt.replicas) && available == int(tt.replicas)
					for _, wm := range world {
						done = done && wm.Labels[clusterv1.MachineSetNameLabel] == newMS
					}
				}
			}
			t.Logf("rollout observed in %d Machine events", steps)

			envtest.WaitFor(t, timeout, "the old MachineSet to be deleted once the rollout completed", func() (bool, error) {
				sets := f.machineSets(md)
				_, stillThere := sets[oldMS]
				return !stillThere && len(sets) == 1, nil
			})
			sets := f.machineSets(md)
			require.Equal(t, "2", sets[newMS].Annotations[clusterv1.RevisionAnnotation])
			require.Equal(t, "v1.37.3", sets[newMS].Spec.Template.Spec.Version)
			f.waitForCondition(md, clusterv1.MachineDeploymentRollingOutCondition, metav1.ConditionFalse, "")
			f.waitForCondition(md, clusterv1.MachineDeploymentAvailableCondition, metav1.ConditionTrue, "")
			envtest.WaitFor(t, timeout, "status to count the up-to-date Machines", func() (bool, error) {
				f.get(md)
				return md.Annotations[clusterv1.RevisionAnnotation] == "2" &&
					ptr.Deref(md.Status.UpToDateReplicas, -1) == tt.replicas &&
					ptr.Deref(md.Status.AvailableReplicas, -1) == tt.replicas &&
					ptr.Deref(md.Status.Replicas, -1) == tt.replicas && md.Status.Phase == "Running", nil
			})
		})
	}
}

func TestMachineDeployment_ReplicasOnlyChangeKeepsTheMachineSetAndMachines(t *testing.T) {
	f := newFixture(t)
	md := f.newMachineDeployment("workers", 2)
	require.NoError(t, env.Client.Create(f.ctx, md))
	msName, original := f.waitForAvailable(md, 2)

	// Any MachineSet created from here on is a failure: watch for one.
	sets := &clusterv1.MachineSetList{}
	require.NoError(t, env.Client.List(f.ctx, sets, client.InNamespace(f.ns)))
	w, err := env.Client.Watch(f.ctx, &clusterv1.MachineSetList{}, client.InNamespace(f.ns),
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: sets.ResourceVersion}})
	require.NoError(t, err)
	defer w.Stop()
	noNewMachineSet := func() {
		t.Helper()
		for {
			select {
			case ev := <-w.ResultChan():
				if ms, ok := ev.Object.(*clusterv1.MachineSet); ok {
					require.Equal(t, msName, ms.Name, "%s event for another MachineSet", ev.Type)
				}
			default:
				return
			}
		}
	}

	f.update(md, func() { md.Spec.Replicas = ptr.To[int32](4) })
	gotMS, now := f.waitForAvailable(md, 4)
	require.Equal(t, msName, gotMS)
	require.Subset(t, now, original, "scaling up keeps the existing Machines")
	noNewMachineSet()

	f.update(md, func() { md.Spec.Replicas = ptr.To[int32](1) })
	gotMS, now = f.waitForAvailable(md, 1)
	require.Equal(t, msName, gotMS)
	noNewMachineSet()

	// In-place fields change the MachineSet and its Machines, not the revision.
	taints := []clusterv1.MachineTaint{{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule, Propagation: clusterv1.MachineTaintPropagationAlways}}
	f.update(md, func() {
		md.Spec.Template.Labels["tier"] = "frontend"
		md.Spec.Template.Spec.MinReadySeconds = ptr.To[int32](5)
		md.Spec.Template.Spec.Taints = taints
	})
	envtest.WaitFor(t, timeout, "in-place fields on the MachineSet and its Machine", func() (bool, error) {
		ms := f.machineSets(md)[msName]
		m := f.machines()[now[0]]
		return ms != nil && ms.Spec.Template.Labels["tier"] == "frontend" && ptr.Deref(ms.Spec.Template.Spec.MinReadySeconds, 0) == 5 &&
			slices.Equal(ms.Spec.Template.Spec.Taints, taints) &&
			m != nil && m.Labels["tier"] == "frontend" && ptr.Deref(m.Spec.MinReadySeconds, 0) == 5 && slices.Equal(m.Spec.Taints, taints), nil
	})
	require.Equal(t, now, f.machinesOf(msName), "the same Machine, changed in place")
	f.get(md)
	require.Equal(t, "1", md.Annotations[clusterv1.RevisionAnnotation])
	noNewMachineSet()
}

func TestMachineDeployment_RolloutAfterReplacesMachinesOfTheSameTemplate(t *testing.T) {
	f := newFixture(t)
	md := f.newMachineDeployment("workers", 2)
	require.NoError(t, env.Client.Create(f.ctx, md))
	oldMS, oldMachines := f.waitForAvailable(md, 2)

	// A time in the future: the controller has to wake itself up when it passes.
	after := metav1.NewTime(time.Now().Add(2 * time.Second).Truncate(time.Second))
	f.update(md, func() { md.Spec.Rollout.After = after })
	envtest.WaitFor(t, timeout, "a new MachineSet once spec.rollout.after has passed", func() (bool, error) {
		sets := f.machineSets(md)
		if _, ok := sets[oldMS]; !ok || len(sets) == 2 {
			require.False(t, time.Now().Before(after.Time), "a MachineSet was created before spec.rollout.after")
			return true, nil
		}
		return false, nil
	})
	newMS, newMachines := f.waitForAvailable(md, 2)
	require.NotEqual(t, oldMS, newMS, "a new MachineSet")
	for _, m := range newMachines {
		require.NotContains(t, oldMachines, m, "every Machine replaced")
	}
	ms := f.machineSets(md)[newMS]
	require.False(t, ms.CreationTimestamp.Before(&after), "created after spec.rollout.after")
	require.Equal(t, "2", ms.Annotations[clusterv1.RevisionAnnotation])

	// Nothing more happens once it has rolled out.
	f.waitForCondition(md, clusterv1.MachineDeploymentRollingOutCondition, metav1.ConditionFalse, "")
	require.Len(t, f.machineSets(md), 1)
}

func TestMachineDeployment_OnDeleteReplacesOnlyMachinesUsersDelete(t *testing.T) {
	f := newFixture(t)
	md := f.newMachineDeployment("workers", 2)
	md.Spec.Rollout.Strategy = clusterv1.MachineDeploymentRolloutStrategy{Type: clusterv1.OnDeleteMachineDeploymentStrategyType}
	require.NoError(t, env.Client.Create(f.ctx, md))
	oldMS, oldMachines := f.waitForAvailable(md, 2)

	f.update(md, func() { md.Spec.Template.Spec.Version = "v1.37.3" })
	var newMS string
	envtest.WaitFor(t, timeout, "a new MachineSet with no replicas and an old one that creates no Machines", func() (bool, error) {
		sets := f.machineSets(md)
		for name := range sets {
			if name != oldMS {
				newMS = name
			}
		}
		old := sets[oldMS]
		return len(sets) == 2 && ptr.Deref(sets[newMS].Spec.Replicas, -1) == 0 &&
			old.Annotations[clusterv1.DisableMachineCreateAnnotation] == "true" && ptr.Deref(old.Spec.Replicas, -1) == 2, nil
	})
	f.waitForCondition(md, clusterv1.MachineDeploymentRollingOutCondition, metav1.ConditionTrue, "delete the old Machines")
	require.Equal(t, oldMachines, f.machinesOf(oldMS), "no Machine is replaced until a user deletes it")

	for i, victim := range oldMachines {
		require.NoError(t, env.Client.Delete(f.ctx, f.machines()[victim]))
		envtest.WaitFor(t, timeout, fmt.Sprintf("a replacement for deleted Machine %s in the new MachineSet", victim), func() (bool, error) {
			for _, name := range f.machinesOf(newMS) {
				f.makeAvailable(name)
			}
			return len(f.machinesOf(newMS)) == i+1 && len(f.machinesOf(oldMS)) == len(oldMachines)-i-1, nil
		})
	}
	envtest.WaitFor(t, timeout, "the old MachineSet to be deleted once every Machine was replaced", func() (bool, error) {
		_, stillThere := f.machineSets(md)[oldMS]
		return !stillThere, nil
	})
	f.waitForCondition(md, clusterv1.MachineDeploymentRollingOutCondition, metav1.ConditionFalse, "")
}

func TestMachineDeployment_ScaleSubresourceScalesLikeKubectlScale(t *testing.T) {
	f := newFixture(t)
	md := f.newMachineDeployment("workers", 1)
	require.NoError(t, env.Client.Create(f.ctx, md))
	f.waitForAvailable(md, 1)

	require.NoError(t, env.Client.SubResource("scale").Update(f.ctx, md,
		client.WithSubResourceBody(&autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 3}})))
	f.waitForAvailable(md, 3)
	envtest.WaitFor(t, timeout, "the scale subresource to report 3 replicas", func() (bool, error) {
		s := &autoscalingv1.Scale{}
		if err := env.Client.SubResource("scale").Get(f.ctx, md, s); err != nil {
			return false, err
		}
		// The cluster-name label is in the selector since admission added it.
		return s.Spec.Replicas == 3 && s.Status.Replicas == 3 &&
			s.Status.Selector == "app=workers,"+clusterv1.ClusterNameLabel+"="+clusterName, nil
	})
	require.Len(t, f.machineSets(md), 1)
}

func TestMachineDeployment_DeletionRemovesMachineSetsThenTheFinalizer(t *testing.T) {
	f := newFixture(t)
	md := f.newMachineDeployment("workers", 2)
	require.NoError(t, env.Client.Create(f.ctx, md))
	f.waitForAvailable(md, 2)

	require.NoError(t, env.Client.Delete(f.ctx, md))
	envtest.WaitFor(t, timeout, "the MachineDeployment, its MachineSet and Machines to be gone", func() (bool, error) {
		err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(md), &clusterv1.MachineDeployment{})
		return client.IgnoreNotFound(err) == nil && err != nil && len(f.machineSets(md)) == 0 && len(f.machines()) == 0, nil
	})
}

// describe summarises Machines for failure messages.
func describe(world map[string]*clusterv1.Machine) []string {
	var out []string
	for name, m := range world {
		state := "unavailable"
		if conditions.IsTrue(m, clusterv1.MachineAvailableCondition) {
			state = "available"
		}
		if !m.DeletionTimestamp.IsZero() {
			state = "deleting"
		}
		out = append(out, fmt.Sprintf("%s(%s,%s)", name, m.Labels[clusterv1.MachineSetNameLabel], state))
	}
	return sorted(out)
}

func TestMachineDeployment_PausedRolloutScalesButDoesNotReplace(t *testing.T) {
	f := newFixture(t)
	md := f.newMachineDeployment("workers", 2)
	require.NoError(t, env.Client.Create(f.ctx, md))
	msName, original := f.waitForAvailable(md, 2)
	// As the MachineSet marks them before it sees an edit of the MachineDeployment.
	for _, name := range original {
		f.setUpToDate(name)
	}
	f.waitForUpToDate(md, 2)

	f.update(md, func() {
		md.Spec.Paused = ptr.To(true)
		md.Spec.Template.Spec.Version = "v1.37.3"
		md.Spec.Replicas = ptr.To[int32](3)
	})
	gotMS, now := f.waitForAvailable(md, 3)
	require.Equal(t, msName, gotMS, "no new MachineSet while paused")
	require.Subset(t, now, original)
	// The new generation is observed with none up to date: the Machines' UpToDate conditions
	// are the MachineSet's word on the old template (`rollout status` relies on this).
	f.waitForUpToDate(md, 0)
	f.waitForCondition(md, clusterv1.MachineDeploymentRollingOutCondition, metav1.ConditionTrue, "paused by spec.paused")

	f.update(md, func() { md.Spec.Paused = ptr.To(false) })
	envtest.WaitFor(t, timeout, "the rollout to resume and complete", func() (bool, error) {
		for name, m := range f.machines() {
			if m.Labels[clusterv1.MachineSetNameLabel] != msName {
				f.makeAvailable(name)
			}
		}
		sets := f.machineSets(md)
		_, oldThere := sets[msName]
		return len(sets) == 1 && !oldThere, nil
	})
	f.waitForAvailable(md, 3)
}

// No webhook defaults the cluster-name label: a MachineDeployment applied without it (as
// upstream manifests are) gets it, with the Cluster as owner, and so do its MachineSets, so
// the Cluster counts its workers and deletes them.
func TestMachineDeployment_WithoutClusterLabelGetsItAndTheClusterAsOwner(t *testing.T) {
	f := newFixture(t)
	md := f.newMachineDeployment("unlabelled", 1)
	require.Empty(t, md.Labels)
	require.NoError(t, env.Client.Create(f.ctx, md))
	envtest.WaitFor(t, timeout, "the cluster-name label and the Cluster owner on the MachineDeployment and its MachineSet", func() (bool, error) {
		got := &clusterv1.MachineDeployment{}
		if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(md), got); err != nil {
			return false, err
		}
		owned := false
		for _, ref := range got.OwnerReferences {
			owned = owned || (ref.Kind == "Cluster" && ref.Name == clusterName)
		}
		sets := f.machineSets(md)
		for _, ms := range sets {
			if ms.Labels[clusterv1.ClusterNameLabel] != clusterName {
				return false, nil
			}
		}
		return got.Labels[clusterv1.ClusterNameLabel] == clusterName && owned && len(sets) == 1, nil
	})
}

// As upstream, the MachineDeployment makes its Cluster an owner of the templates its Machines
// are cloned from, keeping the owners they have, so that the garbage collector deletes them
// with the Cluster; once owned, reconciles write them no more.
func TestMachineDeployment_MakesTheClusterAnOwnerOfItsTemplates(t *testing.T) {
	f := newFixture(t)
	other := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "keeps-it", UID: "0d0e3a1c-0000-4000-8000-000000000001"}
	infra := crds.New(crds.GenericInfrastructureMachineTemplateGVK, f.ns, "infra")
	f.update(infra, func() { infra.SetOwnerReferences([]metav1.OwnerReference{other}) })

	md := f.newMachineDeployment("workers", 1)
	require.NoError(t, env.Client.Create(f.ctx, md))
	cluster := f.waitForTemplatesOwned()
	bootstrap := crds.New(crds.GenericBootstrapConfigTemplateGVK, f.ns, "bootstrap")
	f.get(infra)
	f.get(bootstrap)
	clusterRef := metav1.OwnerReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: clusterName, UID: cluster.UID}
	require.Equal(t, []metav1.OwnerReference{other, clusterRef}, infra.GetOwnerReferences())
	require.Equal(t, []metav1.OwnerReference{clusterRef}, bootstrap.GetOwnerReferences())

	versions := []string{infra.GetResourceVersion(), bootstrap.GetResourceVersion()}
	f.update(md, func() { md.Spec.Replicas = ptr.To(int32(2)) })
	f.waitForAvailable(md, 2)
	f.get(infra)
	f.get(bootstrap)
	require.Equal(t, versions, []string{infra.GetResourceVersion(), bootstrap.GetResourceVersion()}, "an owned template is not written again")
}
