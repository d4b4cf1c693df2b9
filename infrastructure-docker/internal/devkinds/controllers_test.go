package devkinds_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/remote"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/controller/dockercluster"
	"capstan.dev/infrastructure-docker/internal/controller/dockermachine"
	"capstan.dev/infrastructure-docker/internal/controller/dockermachinepool"
	"capstan.dev/infrastructure-docker/internal/devkinds"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/docker/dockertest"
)

// startControllers runs the cluster and machine controllers for the Docker and the Dev kinds,
// as the manager does, as a user holding only their RBAC markers.
func startControllers(t *testing.T, plane string) {
	t.Helper()
	cfg := env.UserFromRBACMarkers(t, "dev-kinds", "../../rbac.go",
		"../controller/dockercluster/controller.go", "../controller/dockermachine/controller.go",
		"../controller/dockermachinepool/controller.go")
	mgr := env.NewManager(t, "dev-kinds", cfg)
	rt, err := docker.New(plane)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	ctx := context.Background()
	copts := controller.Options{SkipNameValidation: ptr.To(true)}
	cc, err := remote.SetupWithManager(mgr, remote.Options{SecretReader: mgr.GetAPIReader(), WatchFilterValue: plane, Controller: copts})
	require.NoError(t, err)
	for _, dev := range []bool{false, true} {
		require.NoError(t, (&dockercluster.Reconciler{Client: mgr.GetClient(), Docker: rt, WatchFilterValue: plane, Dev: dev}).
			SetupWithManager(ctx, mgr, copts))
		require.NoError(t, (&dockermachine.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Docker: rt, Workload: cc,
			WatchFilterValue: plane, Dev: dev}).SetupWithManager(ctx, mgr, copts))
		require.NoError(t, (&dockermachinepool.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Docker: rt, Workload: cc,
			WatchFilterValue: plane, Dev: dev}).SetupWithManager(ctx, mgr, copts))
	}
	envtest.StartManager(t, mgr)
}

// pair creates, in ns, a Cluster whose infrastructure is kinds' cluster kind (not provisioned),
// a Machine using kinds' machine kind, the infrastructure cluster without an owner reference
// (so that no load balancer is made) and the infrastructure machine owned by the Machine.
func pair(t *testing.T, ns, plane string, kinds devkinds.Kinds) (infraCluster, infraMachine client.Object) {
	t.Helper()
	ctx := context.Background()
	labels := map[string]string{clusterv1.ClusterNameLabel: "c1", clusterv1.WatchLabel: plane}
	group := infrav1.GroupVersion.Group
	require.NoError(t, env.Client.Create(ctx, &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns, Labels: map[string]string{clusterv1.WatchLabel: plane}},
		Spec:       clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: group, Kind: kinds.Cluster, Name: "c1"}},
	}))
	machine := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m1", Namespace: ns, Labels: labels},
		Spec: clusterv1.MachineSpec{ClusterName: "c1", Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To("m1")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: group, Kind: kinds.Machine, Name: "m1"}}}
	require.NoError(t, env.Client.Create(ctx, machine))
	infraCluster, infraMachine = kinds.NewCluster(), kinds.NewMachine()
	infraCluster.SetNamespace(ns)
	infraCluster.SetName("c1")
	infraCluster.SetLabels(labels)
	infraMachine.SetNamespace(ns)
	infraMachine.SetName("m1")
	infraMachine.SetLabels(labels)
	infraMachine.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine", Name: "m1", UID: machine.UID}})
	require.NoError(t, env.Client.Create(ctx, infraCluster))
	require.NoError(t, env.Client.Create(ctx, infraMachine))
	return infraCluster, infraMachine
}

// pool creates, in ns, an infrastructure machine pool of kinds' kind that no MachinePool owns
// yet (so that no container is made).
func pool(t *testing.T, ns, plane string, kinds devkinds.Kinds) client.Object {
	t.Helper()
	p := kinds.NewMachinePool()
	p.SetNamespace(ns)
	p.SetName("p1")
	p.SetLabels(map[string]string{clusterv1.ClusterNameLabel: "c1", clusterv1.WatchLabel: plane})
	require.NoError(t, env.Client.Create(context.Background(), p))
	return p
}

// observed is what a controller wrote on an object, with the names of kinds and namespaces
// replaced so that a Docker pair and a Dev pair compare equal when they were treated alike.
type observed struct {
	Finalizers  []string
	Conditions  []metav1.Condition
	Provisioned *bool
}

func observe(t *testing.T, obj client.Object, ns string) observed {
	t.Helper()
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj))
	var out observed
	switch o := obj.(type) {
	case *infrav1.DockerCluster:
		out = observed{o.Finalizers, o.Status.Conditions, o.Status.Initialization.Provisioned}
	case *infrav1.DevCluster:
		out = observed{o.Finalizers, o.Status.Conditions, o.Status.Initialization.Provisioned}
	case *infrav1.DockerMachine:
		out = observed{o.Finalizers, o.Status.Conditions, o.Status.Initialization.Provisioned}
	case *infrav1.DevMachine:
		out = observed{o.Finalizers, o.Status.Conditions, o.Status.Initialization.Provisioned}
	case *infrav1.DockerMachinePool:
		out = observed{o.Finalizers, o.Status.Conditions, o.Status.Initialization.Provisioned}
	case *infrav1.DevMachinePool:
		out = observed{o.Finalizers, o.Status.Conditions, o.Status.Initialization.Provisioned}
	}
	names := strings.NewReplacer(ns, "<ns>", "DevCluster", "DockerCluster", "DevMachinePool", "DockerMachinePool", "DevMachine", "DockerMachine")
	for i := range out.Conditions {
		out.Conditions[i].Message = names.Replace(out.Conditions[i].Message)
	}
	return out
}

// TestDevKinds_ReachTheStatusADockerPairReaches creates a Docker pair and a Dev pair (cluster,
// machine, and a machine pool no MachinePool owns yet) the same way and checks that the one implementation treats them alike: the same finalizers, conditions
// (types, statuses, reasons, messages) and provisioning state, written on each object's own
// kind. No container is made: the clusters have no owner Cluster, so their load balancers wait,
// and the machines wait for the Cluster's infrastructure.
func TestDevKinds_ReachTheStatusADockerPairReaches(t *testing.T) {
	plane := dockertest.Plane(t.Name())
	startControllers(t, plane)
	dockerNS, devNS := env.CreateNamespace(t, "docker-pair"), env.CreateNamespace(t, "dev-pair")
	dockerCluster, dockerMachine := pair(t, dockerNS, plane, devkinds.Docker)
	devCluster, devMachine := pair(t, devNS, plane, devkinds.Dev)
	dockerPool, devPool := pool(t, dockerNS, plane, devkinds.Docker), pool(t, devNS, plane, devkinds.Dev)

	ignoreTimes := cmpopts.IgnoreFields(metav1.Condition{}, "LastTransitionTime", "ObservedGeneration")
	for _, p := range []struct{ docker, dev client.Object }{{dockerCluster, devCluster}, {dockerMachine, devMachine}, {dockerPool, devPool}} {
		envtest.WaitFor(t, 60*time.Second, fmt.Sprintf("%T and %T to be treated alike", p.docker, p.dev), func() (bool, error) {
			want, got := observe(t, p.docker, dockerNS), observe(t, p.dev, devNS)
			if len(want.Conditions) == 0 {
				return false, nil
			}
			if diff := cmp.Diff(want, got, ignoreTimes, cmpopts.SortSlices(func(a, b metav1.Condition) bool { return a.Type < b.Type })); diff != "" {
				return false, fmt.Errorf("(-docker +dev):\n%s", diff)
			}
			return true, nil
		})
	}
	got := observe(t, devMachine, devNS)
	require.Contains(t, got.Finalizers, infrav1.MachineFinalizer, "the Dev machine is owned like a Docker one")
	dm := devMachine.(*infrav1.DevMachine)
	require.Equal(t, &infrav1.DockerMachineBackendSpec{}, dm.Spec.Backend.Docker, "the defaulted backend is kept as written")
}

// TestDevCluster_EventsRegardTheDevCluster: the one implementation records a Dev object's Events
// on that object, as its own kind's controller.
func TestDevCluster_EventsRegardTheDevCluster(t *testing.T) {
	rt := dockertest.Runtime(t, dockercluster.DefaultLoadBalancerImage) // clears the test's plane, now and at the end
	startControllers(t, rt.Plane())
	ns := env.CreateNamespace(t, "dev-events")
	devCluster, _ := pair(t, ns, rt.Plane(), devkinds.Dev)
	cluster := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "c1"}, cluster))
	envtest.Update(t, env.Client, devCluster, func() {
		devCluster.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: "c1", UID: cluster.UID}})
	})

	created := env.WaitForEvents(t, 60*time.Second, devCluster, dockercluster.ReasonSuccessfulCreate, 1)
	require.Equal(t, "DevCluster", created[0].Regarding.Kind)
	require.Equal(t, "devcluster-controller", created[0].ReportingController)
	require.Equal(t, "Created load balancer container c1-lb (image "+dockercluster.DefaultLoadBalancerImage+")", created[0].Note)
}
