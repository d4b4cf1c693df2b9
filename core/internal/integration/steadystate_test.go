package integration

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/manager"
	"capstan.dev/contracts/remote"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/controller/cluster"
	"capstan.dev/core/internal/controller/machine"
	"capstan.dev/core/internal/controller/machinedeployment"
	"capstan.dev/core/internal/controller/machineset"
	"capstan.dev/core/internal/coretest"
)

var (
	env      *envtest.Environment
	auditLog string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "capstan-audit-")
	if err != nil {
		panic(err)
	}
	flags, logPath, err := envtest.WriteAuditFlags(dir)
	if err != nil {
		panic(err)
	}
	auditLog = logPath
	code := envtest.Run(m, envtest.Options{CRDs: crds.All(), APIServerFlags: flags}, &env)
	// os.Exit skips deferred calls: the audit log (up to a megabyte a run) is removed first.
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// startCore runs every core controller that has no external dependency, wired as
// core/controllers.go wires them, with the shortest sync period the managers
// accept so a full resync happens inside the observation window.
func startCore(t *testing.T) { startCoreAs(t, env.Config) }

// startCoreAs is startCore talking to the API server with cfg (a user of its own, whose
// writes the audit log tells from the test's).
func startCoreAs(t *testing.T, cfg *rest.Config) {
	t.Helper()
	opts := manager.NewOptions("core-integration", "core-integration", "default")
	opts.LeaderElect, opts.MetricsBindAddress, opts.HealthProbeBindAddress = false, "0", "0"
	opts.SyncPeriod = time.Minute
	mgr, err := manager.New(opts, env.Scheme, cfg)
	require.NoError(t, err)
	ctx := context.Background()
	copts := controller.Options{SkipNameValidation: ptr.To(true)}
	cc, err := remote.SetupWithManager(mgr, remote.Options{SecretReader: mgr.GetAPIReader(), Controller: copts})
	require.NoError(t, err)
	require.NoError(t, (&cluster.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Health: cc}).SetupWithManager(ctx, mgr, copts))
	require.NoError(t, (&machine.Reconciler{Client: mgr.GetClient(), Workload: cc,
		Recorder: events.New(mgr, machine.ControllerName)}).SetupWithManager(ctx, mgr, copts))
	require.NoError(t, (&machineset.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(),
		Recorder: events.New(mgr, machineset.ControllerName)}).SetupWithManager(ctx, mgr, copts))
	require.NoError(t, (&machinedeployment.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader()}).SetupWithManager(ctx, mgr, copts))
	coretest.StartManager(t, mgr)
}

// TestSteadyState_TwentyMachinesProduceNoWrites builds a Cluster with a
// MachineDeployment of 20 Machines, brings every Machine to Running and
// Available, then watches the API server's audit log: for longer than a sync
// period (so every object is reconciled again at least once) nothing may be
// written.
func TestSteadyState_TwentyMachinesProduceNoWrites(t *testing.T) {
	const replicas = 20
	startCore(t)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "steady")

	c := newInitializedCluster(t, ns, "steady")
	md := &clusterv1.MachineDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: "workers", Namespace: ns},
		Spec: clusterv1.MachineDeploymentSpec{
			ClusterName: c.Name, Replicas: ptr.To[int32](replicas),
			Selector: clusterv1.LabelSelector{MatchLabels: map[string]string{"pool": "workers"}},
			Template: workersTemplate(c.Name),
		},
	}
	require.NoError(t, env.Client.Create(ctx, md))

	// Play the providers: every Machine's clones become provisioned and its Node Ready.
	provisioned := map[string]bool{}
	envtest.WaitFor(t, 3*time.Minute, fmt.Sprintf("%d Machines Running and Available", replicas), func() (bool, error) {
		machines := &clusterv1.MachineList{}
		if err := env.Client.List(ctx, machines, client.InNamespace(ns)); err != nil {
			return false, err
		}
		available := 0
		for i := range machines.Items {
			m := &machines.Items[i]
			if !provisioned[m.Name] {
				if err := provision(ctx, ns, m); err != nil {
					return false, err
				}
				provisioned[m.Name] = true
			}
			if m.Status.Phase == string(clusterv1.MachinePhaseRunning) && conditions.IsTrue(m, clusterv1.MachineAvailableCondition) {
				available++
			}
		}
		if available < replicas {
			return false, fmt.Errorf("%d of %d Machines available", available, replicas)
		}
		return true, nil
	})
	// Every counter final: a counter-only status write may be held back for up to a minute
	// (patch.SummaryLimiter), so a quiet audit log alone does not show that none is pending.
	envtest.WaitFor(t, 2*time.Minute, "the MachineSets, MachineDeployment and Cluster to report it", func() (bool, error) {
		got := &clusterv1.MachineDeployment{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(md), got); err != nil {
			return false, err
		}
		cl := &clusterv1.Cluster{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), cl); err != nil {
			return false, err
		}
		sets := &clusterv1.MachineSetList{}
		if err := env.Client.List(ctx, sets, client.InNamespace(md.Namespace)); err != nil {
			return false, err
		}
		final := func(counts ...*int32) bool {
			for _, n := range counts {
				if ptr.Deref(n, -1) != replicas {
					return false
				}
			}
			return true
		}
		for _, ms := range sets.Items {
			if !final(ms.Status.Replicas, ms.Status.ReadyReplicas, ms.Status.AvailableReplicas, ms.Status.UpToDateReplicas) {
				return false, nil
			}
		}
		mdStatus := got.Status
		return len(sets.Items) > 0 && final(mdStatus.Replicas, mdStatus.ReadyReplicas, mdStatus.AvailableReplicas, mdStatus.UpToDateReplicas) &&
			cl.Status.Workers != nil && final(cl.Status.Workers.Replicas, cl.Status.Workers.ReadyReplicas,
			cl.Status.Workers.AvailableReplicas, cl.Status.Workers.UpToDateReplicas), nil
	})
	// Let in-flight reconciles of the last transitions finish before measuring:
	// wait until the audit log has been quiet for five seconds (bounded).
	envtest.WaitFor(t, 60*time.Second, "the writes of the last transitions to settle", func() (bool, error) {
		recent, err := envtest.AuditWritesBetween(auditLog, time.Now().Add(-5*time.Second), time.Now().Add(time.Second))
		return err == nil && len(recent) == 0, err
	})

	window := 75 * time.Second // longer than the 1m sync period plus its jitter
	from := time.Now()
	deadline := from.Add(window)
	for time.Now().Before(deadline) { // poll so a regression fails fast, with its writes named
		writes, err := envtest.AuditWritesBetween(auditLog, from, time.Now())
		require.NoError(t, err)
		require.Empty(t, writes, "a steady cluster of %d Machines must not be written to; writes:\n%s", replicas, envtest.DescribeAuditEvents(writes))
		time.Sleep(time.Second)
	}
	writes, err := envtest.AuditWritesBetween(auditLog, from, deadline)
	require.NoError(t, err)
	require.Empty(t, writes, "writes in the steady window:\n%s", envtest.DescribeAuditEvents(writes))

	// Events are writes the audit log sees (resource events): the controllers recorded them while
	// the cluster was built, none in the steady window.
	sets := &clusterv1.MachineSetList{}
	require.NoError(t, env.Client.List(ctx, sets, client.InNamespace(ns)))
	require.Len(t, sets.Items, 1)
	created, err := env.Events(ctx, &sets.Items[0], machineset.ReasonSuccessfulCreate)
	require.NoError(t, err)
	require.Len(t, created, replicas, "one Event per Machine created")
}

// newInitializedCluster creates a Cluster whose infrastructure is provisioned, whose control
// plane is initialized and whose workload cluster is envtest itself, and the "workers"
// bootstrap and infrastructure templates a MachineSet clones.
func newInitializedCluster(t *testing.T, ns, name string) *clusterv1.Cluster {
	t.Helper()
	ctx := context.Background()
	infra := crds.New(crds.GenericInfrastructureClusterGVK, ns, name)
	require.NoError(t, env.Client.Create(ctx, infra))
	coretest.SetStatus(t, env, infra, map[string]any{"initialization.provisioned": true})
	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: clusterv1.ClusterSpec{ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: "10.0.0.1", Port: 6443},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, name)}}
	require.NoError(t, env.Client.Create(ctx, c))
	coretest.CreateKubeconfigSecret(t, env, c)
	envtest.WaitFor(t, 30*time.Second, "the Cluster finalizer", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), c)
		return err == nil && len(c.Finalizers) > 0, err
	})
	// As a control plane provider would report; the Cluster controller writes the
	// same status concurrently, so a conflict is retried on a fresh read.
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c), c); err != nil {
			return err
		}
		c.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
		return env.Client.Status().Update(ctx, c)
	}))

	for _, tmpl := range []*unstructured.Unstructured{
		crds.New(crds.GenericInfrastructureMachineTemplateGVK, ns, "workers"),
		crds.New(crds.GenericBootstrapConfigTemplateGVK, ns, "workers"),
	} {
		require.NoError(t, unstructured.SetNestedMap(tmpl.Object, map[string]any{"spec": map[string]any{}}, "spec", "template"))
		require.NoError(t, env.Client.Create(ctx, tmpl))
	}
	return c
}

// workersTemplate is a Machine template of Cluster cluster cloning the "workers" templates
// newInitializedCluster creates, labelled pool=workers.
func workersTemplate(cluster string) clusterv1.MachineTemplateSpec {
	return clusterv1.MachineTemplateSpec{
		ObjectMeta: clusterv1.ObjectMeta{Labels: map[string]string{"pool": "workers"}},
		Spec: clusterv1.MachineSpec{ClusterName: cluster, Version: "v1.37.2",
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: crds.GenericBootstrapConfigTemplateGVK.Group, Kind: crds.GenericBootstrapConfigTemplateGVK.Kind, Name: "workers"}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: crds.GenericInfrastructureMachineTemplateGVK.Group, Kind: crds.GenericInfrastructureMachineTemplateGVK.Kind, Name: "workers"}},
	}
}

// provision marks a Machine's generic bootstrap config and infra machine done and
// registers its Node, as the providers and the kubelet would.
func provision(ctx context.Context, ns string, m *clusterv1.Machine) error {
	if err := provisionBootstrap(ctx, ns, m); err != nil {
		return err
	}
	return provisionInfrastructure(ctx, ns, m)
}

// provisionBootstrap marks a Machine's generic bootstrap config done, as its provider would.
func provisionBootstrap(ctx context.Context, ns string, m *clusterv1.Machine) error {
	if ref := m.Spec.Bootstrap.ConfigRef; ref.Name != "" {
		b := crds.New(crds.GenericBootstrapConfigGVK, ns, ref.Name)
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(b), b); err != nil {
			return err
		}
		_ = unstructured.SetNestedField(b.Object, true, "status", "initialization", "dataSecretCreated")
		_ = unstructured.SetNestedField(b.Object, ref.Name+"-data", "status", "dataSecretName")
		return env.Client.Status().Update(ctx, b)
	}
	return nil
}

// provisionInfrastructure marks a Machine's generic infra machine done and registers its Node,
// as its provider and the kubelet would.
func provisionInfrastructure(ctx context.Context, ns string, m *clusterv1.Machine) error {
	providerID := "generic:////" + ns + "-" + m.Name
	infra := crds.New(crds.GenericInfrastructureMachineGVK, ns, m.Spec.InfrastructureRef.Name)
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(infra), infra); err != nil {
		return err
	}
	_ = unstructured.SetNestedField(infra.Object, providerID, "spec", "providerID")
	if err := env.Client.Update(ctx, infra); err != nil {
		return err
	}
	_ = unstructured.SetNestedField(infra.Object, true, "status", "initialization", "provisioned")
	if err := env.Client.Status().Update(ctx, infra); err != nil {
		return err
	}
	// provision is retried after a conflict, so the Node may exist already.
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + m.Name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
	if err := env.Client.Create(ctx, node); apierrors.IsAlreadyExists(err) {
		err = env.Client.Get(ctx, client.ObjectKeyFromObject(node), node)
		if err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	now := metav1.Now()
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		LastHeartbeatTime: now, LastTransitionTime: now}}
	return env.Client.Status().Update(ctx, node)
}
