package machinedeployment

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/controller/machineset"
	"capstan.dev/core/internal/coretest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(coretest.Run(m, &env)) }

const (
	clusterName = "c1"
	timeout     = 60 * time.Second
)

// fixture is one test's namespace with a Cluster, the templates the MachineSets clone, and a
// manager running the MachineDeployment and MachineSet controllers. The Machine controller does
// not run: tests play its part by setting Machine status.
type fixture struct {
	t   *testing.T
	ctx context.Context
	ns  string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixtureWithoutControllers(t)
	mgr := coretest.NewManager(t, env)
	opts := controller.Options{SkipNameValidation: ptr.To(true)}
	require.NoError(t, (&Reconciler{Client: mgr.GetClient()}).SetupWithManager(f.ctx, mgr, opts))
	require.NoError(t, (&machineset.Reconciler{Client: mgr.GetClient()}).SetupWithManager(f.ctx, mgr, opts))
	coretest.StandInForMachineController(t, mgr)
	f.start(mgr)
	return f
}

// newFixtureWithoutControllers creates the namespace, Cluster and templates only; the test
// registers the controllers on a manager of its own and calls start.
func newFixtureWithoutControllers(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, ctx: context.Background(), ns: env.CreateNamespace(t, "md")}
	require.NoError(t, env.Client.Create(f.ctx, &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: clusterName},
		Spec: clusterv1.ClusterSpec{ClusterNetwork: clusterv1.ClusterNetwork{ServiceDomain: "cluster.local"},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, clusterName)},
	}))
	bt := crds.New(crds.GenericBootstrapConfigTemplateGVK, f.ns, "bootstrap")
	require.NoError(t, unstructured.SetNestedField(bt.Object, map[string]any{"spec": map[string]any{}}, "spec", "template"))
	require.NoError(t, env.Client.Create(f.ctx, bt))
	it := crds.New(crds.GenericInfrastructureMachineTemplateGVK, f.ns, "infra")
	require.NoError(t, unstructured.SetNestedField(it.Object, map[string]any{"spec": map[string]any{}}, "spec", "template"))
	require.NoError(t, env.Client.Create(f.ctx, it))
	return f
}

// start runs mgr until the test ends; before it stops, the namespace's MachineDeployments are
// deleted and waited for, so that the next test's manager has nothing of this test to reconcile.
func (f *fixture) start(mgr ctrl.Manager) {
	f.t.Helper()
	coretest.StartManager(f.t, mgr)
	f.t.Cleanup(f.cleanup) // runs before the manager stops: cleanups run last-in first-out
}

// cleanup deletes the namespace's MachineDeployments and waits until they, their MachineSets and
// their Machines are gone, while the controllers still run.
func (f *fixture) cleanup() {
	list := &clusterv1.MachineDeploymentList{}
	if err := env.Client.List(f.ctx, list, client.InNamespace(f.ns)); err != nil {
		f.t.Errorf("listing MachineDeployments: %v", err)
		return
	}
	for i := range list.Items {
		if err := env.Client.Delete(f.ctx, &list.Items[i]); client.IgnoreNotFound(err) != nil {
			f.t.Errorf("deleting MachineDeployment %s: %v", list.Items[i].Name, err)
		}
	}
	err := envtest.Poll(timeout, func() (bool, error) {
		mds := &clusterv1.MachineDeploymentList{}
		sets := &clusterv1.MachineSetList{}
		if err := env.Client.List(f.ctx, mds, client.InNamespace(f.ns)); err != nil {
			return false, err
		}
		if err := env.Client.List(f.ctx, sets, client.InNamespace(f.ns)); err != nil {
			return false, err
		}
		return len(mds.Items) == 0 && len(sets.Items) == 0, nil
	})
	if err != nil {
		f.t.Errorf("MachineDeployments of namespace %s not gone: %v", f.ns, err)
	}
}

func (f *fixture) newMachineDeployment(name string, replicas int32) *clusterv1.MachineDeployment {
	return &clusterv1.MachineDeployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name},
		Spec: clusterv1.MachineDeploymentSpec{
			ClusterName: clusterName,
			Replicas:    ptr.To(replicas),
			Selector:    clusterv1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: clusterv1.MachineTemplateSpec{
				ObjectMeta: clusterv1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: clusterv1.MachineSpec{
					ClusterName: clusterName,
					Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
						APIGroup: crds.BootstrapGroupVersion.Group, Kind: crds.GenericBootstrapConfigTemplateGVK.Kind, Name: "bootstrap",
					}},
					InfrastructureRef: clusterv1.ContractVersionedObjectReference{
						APIGroup: crds.InfrastructureGroupVersion.Group, Kind: crds.GenericInfrastructureMachineTemplateGVK.Kind, Name: "infra",
					},
					Version: "v1.37.2",
				},
			},
		},
	}
}

// waitForTemplatesOwned waits until the fixture's Cluster owns both templates, and returns it.
func (f *fixture) waitForTemplatesOwned() *clusterv1.Cluster {
	f.t.Helper()
	cluster := &clusterv1.Cluster{}
	envtest.WaitFor(f.t, timeout, "the Cluster to own the bootstrap and infrastructure templates", func() (bool, error) {
		if err := env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: clusterName}, cluster); err != nil {
			return false, err
		}
		for _, tmpl := range []*unstructured.Unstructured{
			crds.New(crds.GenericBootstrapConfigTemplateGVK, f.ns, "bootstrap"),
			crds.New(crds.GenericInfrastructureMachineTemplateGVK, f.ns, "infra"),
		} {
			if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(tmpl), tmpl); err != nil {
				return false, err
			}
			if !slices.ContainsFunc(tmpl.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return r.UID == cluster.UID }) {
				return false, nil
			}
		}
		return true, nil
	})
	return cluster
}

// get reads obj again from the API server.
func (f *fixture) get(obj client.Object) {
	f.t.Helper()
	require.NoError(f.t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(obj), obj))
}

// update re-reads obj, applies change and writes it, retrying when a controller wrote it in
// between.
func (f *fixture) update(obj client.Object, change func()) {
	f.t.Helper()
	require.NoError(f.t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		change()
		return env.Client.Update(f.ctx, obj)
	}))
}

// machineSets lists the MachineSets md controls, by name.
func (f *fixture) machineSets(md *clusterv1.MachineDeployment) map[string]*clusterv1.MachineSet {
	f.t.Helper()
	list := &clusterv1.MachineSetList{}
	require.NoError(f.t, env.Client.List(f.ctx, list, client.InNamespace(f.ns)))
	out := map[string]*clusterv1.MachineSet{}
	for i := range list.Items {
		if ref := metav1.GetControllerOf(&list.Items[i]); ref != nil && ref.UID == md.UID {
			out[list.Items[i].Name] = &list.Items[i]
		}
	}
	return out
}

// machines lists the namespace's Machines, by name.
func (f *fixture) machines() map[string]*clusterv1.Machine {
	f.t.Helper()
	list := &clusterv1.MachineList{}
	require.NoError(f.t, env.Client.List(f.ctx, list, client.InNamespace(f.ns)))
	out := map[string]*clusterv1.Machine{}
	for i := range list.Items {
		out[list.Items[i].Name] = &list.Items[i]
	}
	return out
}

// machinesOf returns the names of the Machines of the MachineSet named ms that are not being
// deleted.
func (f *fixture) machinesOf(ms string) []string {
	var out []string
	for name, m := range f.machines() {
		if m.Labels[clusterv1.MachineSetNameLabel] == ms && m.DeletionTimestamp.IsZero() {
			out = append(out, name)
		}
	}
	return sorted(out)
}

// makeAvailable plays the Machine controller: the Machine gets a Node and becomes Ready and
// Available. A Machine that is gone is ignored.
func (f *fixture) makeAvailable(name string) {
	f.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := &clusterv1.Machine{}
		if err := env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: name}, m); err != nil {
			return err
		}
		if conditions.IsTrue(m, clusterv1.MachineAvailableCondition) {
			return nil
		}
		m.Status.NodeRef = clusterv1.MachineNodeReference{Name: name}
		conditions.Set(m, conditions.True(clusterv1.MachineReadyCondition, clusterv1.MachineReadyReason, ""))
		conditions.Set(m, conditions.True(clusterv1.MachineAvailableCondition, clusterv1.MachineAvailableReason, ""))
		return env.Client.Status().Update(f.ctx, m)
	})
	require.NoError(f.t, client.IgnoreNotFound(err))
}

// setUpToDate sets the Machine's UpToDate condition True, as the MachineSet controller does.
func (f *fixture) setUpToDate(name string) {
	f.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := &clusterv1.Machine{}
		if err := env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: name}, m); err != nil {
			return err
		}
		conditions.Set(m, conditions.True(clusterv1.MachineUpToDateCondition, clusterv1.UpToDateReason, ""))
		return env.Client.Status().Update(f.ctx, m)
	})
	require.NoError(f.t, err)
}

// waitForUpToDate waits until md's status, at its current generation, counts n up-to-date
// replicas.
func (f *fixture) waitForUpToDate(md *clusterv1.MachineDeployment, n int32) {
	f.t.Helper()
	envtest.WaitFor(f.t, timeout, fmt.Sprintf("MachineDeployment %s to count %d up-to-date replicas", md.Name, n), func() (bool, error) {
		got := &clusterv1.MachineDeployment{}
		if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(md), got); err != nil {
			return false, err
		}
		return got.Status.ObservedGeneration == got.Generation && ptr.Deref(got.Status.UpToDateReplicas, -1) == n, nil
	})
}

// waitForAvailable makes Machines available as they appear until md has n Machines, all
// available and in one MachineSet, and returns that MachineSet's name and its Machines.
func (f *fixture) waitForAvailable(md *clusterv1.MachineDeployment, n int) (string, []string) {
	f.t.Helper()
	var msName string
	var names []string
	envtest.WaitFor(f.t, timeout, "MachineDeployment "+md.Name+" to have available Machines", func() (bool, error) {
		for name, m := range f.machines() {
			if m.DeletionTimestamp.IsZero() && !conditions.IsTrue(m, clusterv1.MachineAvailableCondition) {
				f.makeAvailable(name)
			}
		}
		sets := f.machineSets(md)
		if len(sets) != 1 {
			return false, nil
		}
		for name := range sets {
			msName = name
		}
		names = f.machinesOf(msName)
		got := &clusterv1.MachineDeployment{}
		if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(md), got); err != nil {
			return false, err
		}
		return len(names) == n && ptr.Deref(got.Status.AvailableReplicas, -1) == int32(n) &&
			got.Status.ObservedGeneration == got.Generation, nil
	})
	return msName, names
}

// waitForCondition waits until md has the condition with the status and a message containing msg.
func (f *fixture) waitForCondition(md *clusterv1.MachineDeployment, condType string, status metav1.ConditionStatus, msg string) {
	f.t.Helper()
	envtest.WaitFor(f.t, timeout, "MachineDeployment "+md.Name+" condition "+condType+"="+string(status), func() (bool, error) {
		got := &clusterv1.MachineDeployment{}
		if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(md), got); err != nil {
			return false, err
		}
		c := conditions.Get(got, condType)
		return c != nil && c.Status == status && strings.Contains(c.Message, msg), nil
	})
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
