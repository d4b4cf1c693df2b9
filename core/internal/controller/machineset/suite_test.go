package machineset

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(coretest.Run(m, &env)) }

const (
	clusterName = "c1"
	// holdFinalizer keeps a deleted Machine around, as the Machine controller's finalizer does
	// while it drains a Node; tests remove it to let the Machine go.
	holdFinalizer = "test.capstan.dev/hold"
	timeout       = 30 * time.Second
)

// fixture is one test's namespace with a Cluster and the templates MachineSets clone.
type fixture struct {
	t   *testing.T
	ctx context.Context
	ns  string
}

// newFixture creates a namespace, a Cluster and a bootstrap and infrastructure template, and,
// unless withoutController, starts a manager running the MachineSet controller. When the test
// ends it deletes the namespace's MachineSets and waits for them to be gone while the controller
// still runs, so that no object of this test is reconciled by the next test's manager.
func newFixture(t *testing.T, withoutController ...bool) *fixture {
	t.Helper()
	f := &fixture{t: t, ctx: context.Background(), ns: env.CreateNamespace(t, "ms")}
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: clusterName},
		Spec: clusterv1.ClusterSpec{ClusterNetwork: clusterv1.ClusterNetwork{ServiceDomain: "cluster.local"},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, clusterName)},
	}
	require.NoError(t, env.Client.Create(f.ctx, cluster))

	bt := crds.New(crds.GenericBootstrapConfigTemplateGVK, f.ns, "bootstrap")
	require.NoError(t, unstructured.SetNestedField(bt.Object, map[string]any{
		"spec": map[string]any{"format": "cloud-config"},
	}, "spec", "template"))
	require.NoError(t, env.Client.Create(f.ctx, bt))
	it := crds.New(crds.GenericInfrastructureMachineTemplateGVK, f.ns, "infra")
	require.NoError(t, unstructured.SetNestedField(it.Object, map[string]any{
		"spec": map[string]any{"image": "node:v1.37.2"},
	}, "spec", "template"))
	require.NoError(t, env.Client.Create(f.ctx, it))

	if len(withoutController) == 0 || !withoutController[0] {
		mgr := coretest.NewManager(t, env)
		r := &Reconciler{Client: mgr.GetClient()}
		require.NoError(t, r.SetupWithManager(f.ctx, mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
		coretest.StandInForMachineController(t, mgr)
		coretest.StartManager(t, mgr)
	}
	t.Cleanup(f.cleanup)
	return f
}

func (f *fixture) cleanup() {
	ctx := f.ctx
	list := &clusterv1.MachineSetList{}
	if err := env.Client.List(ctx, list, client.InNamespace(f.ns)); err != nil {
		f.t.Errorf("listing MachineSets: %v", err)
		return
	}
	for i := range list.Items {
		if err := env.Client.Delete(ctx, &list.Items[i]); client.IgnoreNotFound(err) != nil {
			f.t.Errorf("deleting MachineSet %s: %v", list.Items[i].Name, err)
		}
	}
	f.releaseAllMachines()
	err := envtest.Poll(timeout, func() (bool, error) {
		f.releaseAllMachines()
		left := &clusterv1.MachineSetList{}
		if err := env.Client.List(ctx, left, client.InNamespace(f.ns)); err != nil {
			return false, err
		}
		for i := range left.Items { // without a running controller nobody removes the finalizer
			ms := &left.Items[i]
			if controllerutil.RemoveFinalizer(ms, clusterv1.MachineSetFinalizer) {
				_ = env.Client.Update(ctx, ms)
			}
		}
		return len(left.Items) == 0, nil
	})
	if err != nil {
		f.t.Errorf("MachineSets of namespace %s not gone: %v", f.ns, err)
	}
}

// releaseAllMachines removes the test finalizer from every Machine of the namespace.
func (f *fixture) releaseAllMachines() {
	list := &clusterv1.MachineList{}
	if err := env.Client.List(f.ctx, list, client.InNamespace(f.ns)); err != nil {
		return
	}
	for i := range list.Items {
		f.release(list.Items[i].Name)
	}
}

// release removes the hold finalizer from a Machine, and from a deleted one the Machine
// finalizer, letting a deleted Machine go.
func (f *fixture) release(name string) {
	_ = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := &clusterv1.Machine{}
		if err := env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: name}, m); err != nil {
			return client.IgnoreNotFound(err)
		}
		removed := controllerutil.RemoveFinalizer(m, holdFinalizer)
		if !m.DeletionTimestamp.IsZero() && controllerutil.RemoveFinalizer(m, clusterv1.MachineFinalizer) {
			removed = true
		}
		if !removed {
			return nil
		}
		return env.Client.Update(f.ctx, m)
	})
}

// machineTemplate is a template cloning the fixture's bootstrap and infrastructure templates.
func machineTemplate(labels map[string]string) clusterv1.MachineTemplateSpec {
	return clusterv1.MachineTemplateSpec{
		ObjectMeta: clusterv1.ObjectMeta{Labels: labels},
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
	}
}

// newMachineSet returns a MachineSet selecting app=<app> with replicas Machines.
func (f *fixture) newMachineSet(name, app string, replicas int32) *clusterv1.MachineSet {
	return &clusterv1.MachineSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name},
		Spec: clusterv1.MachineSetSpec{
			ClusterName: clusterName,
			Replicas:    ptr.To(replicas),
			Selector:    clusterv1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			Template:    machineTemplate(map[string]string{"app": app}),
		},
	}
}

// newMachine returns a standalone Machine labelled for the fixture's Cluster and app=<app>.
func (f *fixture) newMachine(name, app string) *clusterv1.Machine {
	return &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: f.ns, Name: name,
			Labels: map[string]string{"app": app, clusterv1.ClusterNameLabel: clusterName},
		},
		Spec: clusterv1.MachineSpec{
			ClusterName: clusterName,
			Bootstrap:   clusterv1.Bootstrap{DataSecretName: ptr.To("bootstrap-data")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: crds.InfrastructureGroupVersion.Group, Kind: crds.GenericInfrastructureMachineGVK.Kind, Name: name,
			},
			Version: "v1.37.2",
		},
	}
}

// machines lists the namespace's Machines from the API server, keyed by name.
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

// ownedBy returns the Machines ms controls, keyed by name.
func (f *fixture) ownedBy(ms *clusterv1.MachineSet) map[string]*clusterv1.Machine {
	f.t.Helper()
	out := map[string]*clusterv1.Machine{}
	for name, m := range f.machines() {
		if ref := metav1.GetControllerOf(m); ref != nil && ref.UID == ms.UID {
			out[name] = m
		}
	}
	return out
}

// waitForOwned waits until ms controls exactly n Machines that are not being deleted, and
// returns them.
func (f *fixture) waitForOwned(ms *clusterv1.MachineSet, n int) map[string]*clusterv1.Machine {
	f.t.Helper()
	var got map[string]*clusterv1.Machine
	envtest.WaitFor(f.t, timeout, "MachineSet "+ms.Name+" to own Machines", func() (bool, error) {
		got = map[string]*clusterv1.Machine{}
		for name, m := range f.ownedBy(ms) {
			if m.DeletionTimestamp.IsZero() {
				got[name] = m
			}
		}
		return len(got) == n, nil
	})
	return got
}

// updateMachine changes a Machine as its controller or a user would, retrying on conflicts.
func (f *fixture) updateMachine(name string, change func(*clusterv1.Machine), status bool) {
	f.t.Helper()
	require.NoError(f.t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := &clusterv1.Machine{}
		if err := env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: name}, m); err != nil {
			return err
		}
		change(m)
		if status {
			return env.Client.Status().Update(f.ctx, m)
		}
		return env.Client.Update(f.ctx, m)
	}))
}

// makeHealthy gives a Machine a Node and Ready and Available conditions, as the Machine
// controller does once the Node is up.
func (f *fixture) makeHealthy(name string) {
	f.updateMachine(name, func(m *clusterv1.Machine) {
		m.Status.NodeRef = clusterv1.MachineNodeReference{Name: name}
		conditions.Set(m, conditions.True(clusterv1.MachineReadyCondition, clusterv1.MachineReadyReason, ""))
		conditions.Set(m, conditions.True(clusterv1.MachineAvailableCondition, clusterv1.MachineAvailableReason, ""))
	}, true)
}

// get reads obj again from the API server.
func (f *fixture) get(obj client.Object) {
	f.t.Helper()
	require.NoError(f.t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(obj), obj))
}

// update re-reads obj, applies change to it and writes it, retrying when a controller wrote it
// in between.
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

// waitForCondition waits until ms has the condition with the status and a message containing
// msg.
func (f *fixture) waitForCondition(ms *clusterv1.MachineSet, condType string, status metav1.ConditionStatus, msg string) {
	f.t.Helper()
	envtest.WaitFor(f.t, timeout, "MachineSet "+ms.Name+" condition "+condType+"="+string(status), func() (bool, error) {
		got := &clusterv1.MachineSet{}
		if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(ms), got); err != nil {
			return false, err
		}
		c := conditions.Get(got, condType)
		return c != nil && c.Status == status && strings.Contains(c.Message, msg), nil
	})
}

// gone reports whether obj no longer exists.
func gone(ctx context.Context, obj client.Object) (bool, error) {
	err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return false, err
}

// request is the reconcile request for obj.
func request(obj client.Object) ctrl.Request {
	return ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)}
}
