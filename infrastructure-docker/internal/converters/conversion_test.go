package converters

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1beta1 "capstan.dev/contracts/api/core/v1beta1"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/manager"
	"capstan.dev/contracts/remote"
	infrav1beta1 "capstan.dev/infrastructure-docker/api/v1beta1"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/apitest"
	"capstan.dev/infrastructure-docker/internal/controller/dockercluster"
	"capstan.dev/infrastructure-docker/internal/controller/dockermachine"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/docker/dockertest"
)

// plural names of the CRDs the provider's webhook serves.
var servedCRDs = []string{"dockerclusters", "dockerclustertemplates", "dockermachines", "dockermachinetemplates",
	"dockermachinepools", "dockermachinepooltemplates", "devclusters", "devclustertemplates", "devmachines", "devmachinetemplates"}

// servedCRDNames are the names of the CRDs the provider's webhook serves.
func servedCRDNames() []string {
	names := make([]string, 0, len(servedCRDs))
	for _, plural := range servedCRDs {
		names = append(names, plural+"."+infrav1.GroupVersion.Group)
	}
	return names
}

func conversionScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s, err := apitest.Scheme()
	require.NoError(t, err)
	require.NoError(t, infrav1beta1.AddToScheme(s))
	return s
}

// startManagerWithWebhook runs the DockerCluster and DockerMachine controllers and the
// conversion webhook on a loopback port, as `capstanctl init --dev` runs the manager, as a user
// holding only the provider's RBAC markers, and waits until every served CRD points at it.
func startManagerWithWebhook(t *testing.T, plane string) (stop func()) {
	t.Helper()
	opts := manager.NewOptions("docker-conversion", "docker-conversion", "default")
	opts.LeaderElect, opts.MetricsBindAddress, opts.HealthProbeBindAddress = false, "0", "0"
	opts.Webhook.BindAddress = envtest.FreeLoopbackAddr(t)
	opts.Webhook.ResyncInterval = time.Second
	cfg := env.UserFromRBACMarkers(t, "docker-conversion", "../../rbac.go",
		"../controller/dockercluster/controller.go", "../controller/dockermachine/controller.go")
	mgr, err := manager.New(opts, conversionScheme(t), cfg)
	require.NoError(t, err)
	require.NoError(t, conversionwebhook.Setup(mgr, opts.Webhook, Kinds()))
	rt, err := docker.New(plane)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close() })
	ctx := context.Background()
	copts := controller.Options{SkipNameValidation: ptr.To(true)}
	require.NoError(t, (&dockercluster.Reconciler{Client: mgr.GetClient(), Docker: rt, WatchFilterValue: plane}).SetupWithManager(ctx, mgr, copts))
	cc, err := remote.SetupWithManager(mgr, remote.Options{SecretReader: mgr.GetAPIReader(), WatchFilterValue: plane, Controller: copts})
	require.NoError(t, err)
	require.NoError(t, (&dockermachine.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Docker: rt, Workload: cc,
		WatchFilterValue: plane}).SetupWithManager(ctx, mgr, copts))
	stop = envtest.StartManager(t, mgr)
	env.WaitForConversionWebhook(t, 60*time.Second, "https://"+opts.Webhook.BindAddress+conversionwebhook.Path, servedCRDNames()...)
	return stop
}

// TestConversion_V1Beta1ClientWorksOnDockerObjectsTheV1Beta2ControllersOwn writes a DockerCluster
// and a DockerMachine through a client built on upstream's v1beta1 shapes, lets the v1beta2
// controllers take them over (no container is made: the DockerCluster has no owner Cluster yet
// and the DockerMachine waits for the Cluster's infrastructure), updates them through v1beta1
// and checks that nothing either side wrote is lost, including what v1beta2 has no field for
// (customHAProxyConfigTemplateRef, the deprecated spec.bootstrapped). Then the manager stops:
// v1beta2 reads go on, v1beta1 reads fail naming the conversion webhook.
func TestConversion_V1Beta1ClientWorksOnDockerObjectsTheV1Beta2ControllersOwn(t *testing.T) {
	ctx := context.Background()
	plane := dockertest.Plane(t.Name())
	stop := startManagerWithWebhook(t, plane)
	ns := env.CreateNamespace(t, "conversion")
	old, err := client.New(env.Config, client.Options{Scheme: conversionScheme(t)})
	require.NoError(t, err)
	labels := map[string]string{clusterv1.ClusterNameLabel: "c1", clusterv1.WatchLabel: plane}

	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns, Labels: map[string]string{clusterv1.WatchLabel: plane}},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "DockerCluster", Name: "c1"}}}
	require.NoError(t, env.Client.Create(ctx, cluster))
	machine := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m1", Namespace: ns, Labels: labels},
		Spec: clusterv1.MachineSpec{ClusterName: "c1", Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To("m1")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "DockerMachine", Name: "m1"}}}
	require.NoError(t, env.Client.Create(ctx, machine))

	haproxy := &corev1.LocalObjectReference{Name: "my-haproxy"}
	dc := &infrav1beta1.DockerCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns, Labels: labels},
		Spec: infrav1beta1.DockerClusterSpec{DockerClusterBackendSpec: infrav1beta1.DockerClusterBackendSpec{
			FailureDomains: clusterv1beta1.FailureDomains{"fd-b": {ControlPlane: true}, "fd-a": {}},
			LoadBalancer: infrav1beta1.DockerLoadBalancer{ImageMeta: infrav1beta1.ImageMeta{ImageRepository: "kindest"},
				CustomHAProxyConfigTemplateRef: haproxy},
		}}}
	require.NoError(t, old.Create(ctx, dc))
	dm := &infrav1beta1.DockerMachine{ObjectMeta: metav1.ObjectMeta{Name: "m1", Namespace: ns, Labels: labels,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine", Name: "m1", UID: machine.UID}}},
		Spec: infrav1beta1.DockerMachineSpec{DockerMachineBackendSpec: infrav1beta1.DockerMachineBackendSpec{
			Bootstrapped: true, BootstrapTimeout: &metav1.Duration{Duration: 90 * time.Second},
			ExtraMounts: []infrav1beta1.Mount{{ContainerPath: "/data", HostPath: "/srv/data"}}}}}
	require.NoError(t, old.Create(ctx, dm))

	// The v1beta2 controllers own both: conditions, and the DockerMachine's finalizer.
	hc, hm := &infrav1.DockerCluster{}, &infrav1.DockerMachine{}
	envtest.WaitFor(t, 60*time.Second, "the v1beta2 controllers to take the objects over", func() (bool, error) {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(dc), hc); err != nil {
			return false, err
		}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(dm), hm); err != nil {
			return false, err
		}
		return len(hc.Status.Conditions) > 0 && len(hm.Finalizers) > 0 && len(hm.Status.Conditions) > 0, nil
	})
	require.Equal(t, []clusterv1.FailureDomain{{Name: "fd-a", ControlPlane: ptr.To(false)}, {Name: "fd-b", ControlPlane: ptr.To(true)}},
		hc.Spec.FailureDomains, "map to a list sorted by name, controlPlane always set (as upstream)")
	require.Equal(t, "kindest", hc.Spec.LoadBalancer.ImageRepository)
	require.Equal(t, []infrav1.Mount{{ContainerPath: "/data", HostPath: "/srv/data"}}, hm.Spec.ExtraMounts)
	require.Equal(t, 90*time.Second, hm.Spec.BootstrapTimeout.Duration)

	// Read back through v1beta1: what v1beta2 cannot hold survived, what the controllers wrote shows.
	gotC, gotM := &infrav1beta1.DockerCluster{}, &infrav1beta1.DockerMachine{}
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(dc), gotC))
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(dm), gotM))
	require.Equal(t, haproxy, gotC.Spec.LoadBalancer.CustomHAProxyConfigTemplateRef)
	require.Equal(t, dc.Spec.FailureDomains, gotC.Spec.FailureDomains)
	require.NotNil(t, gotC.Status.V1Beta2)
	require.NotEmpty(t, gotC.Status.V1Beta2.Conditions)
	require.True(t, gotM.Spec.Bootstrapped)
	require.Contains(t, gotM.Finalizers, infrav1.MachineFinalizer)
	require.NotNil(t, gotM.Status.V1Beta2)
	require.NotEmpty(t, gotM.Status.V1Beta2.Conditions)

	// Update through v1beta1: the change lands in v1beta2, the unmapped fields stay.
	// The controllers write the objects too: each update is retried on a conflict, as a client's.
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := old.Get(ctx, client.ObjectKeyFromObject(dm), gotM); err != nil {
			return err
		}
		gotM.Spec.CustomImage = "capstan/node:custom"
		return old.Update(ctx, gotM)
	}))
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := old.Get(ctx, client.ObjectKeyFromObject(dc), gotC); err != nil {
			return err
		}
		gotC.Labels["updated"] = "through-v1beta1"
		return old.Update(ctx, gotC)
	}))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(dm), hm))
	require.Equal(t, "capstan/node:custom", hm.Spec.CustomImage)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(dc), hc))
	require.Equal(t, "through-v1beta1", hc.Labels["updated"])
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(dm), gotM))
	require.True(t, gotM.Spec.Bootstrapped)
	require.Equal(t, "capstan/node:custom", gotM.Spec.CustomImage)
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(dc), gotC))
	require.Equal(t, haproxy, gotC.Spec.LoadBalancer.CustomHAProxyConfigTemplateRef)

	// Upstream's v1beta1 Dev manifests: converted, then defaulted as v1beta2 ones are.
	devC := &infrav1beta1.DevCluster{ObjectMeta: metav1.ObjectMeta{Name: "dev1", Namespace: ns},
		Spec: infrav1beta1.DevClusterSpec{Backend: infrav1beta1.DevClusterBackendSpec{Docker: &infrav1beta1.DockerClusterBackendSpec{
			FailureDomains: clusterv1beta1.FailureDomains{"fd-a": {}}}}}}
	require.NoError(t, old.Create(ctx, devC))
	devM := &infrav1beta1.DevMachine{ObjectMeta: metav1.ObjectMeta{Name: "dev1", Namespace: ns}}
	require.NoError(t, old.Create(ctx, devM))
	hdc, hdm := &infrav1.DevCluster{}, &infrav1.DevMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(devC), hdc))
	require.Equal(t, clusterv1.APIEndpoint{Port: 6443}, hdc.Spec.ControlPlaneEndpoint)
	require.Equal(t, []clusterv1.FailureDomain{{Name: "fd-a", ControlPlane: ptr.To(false)}}, hdc.Spec.Backend.Docker.FailureDomains)
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(devM), hdm))
	require.Equal(t, &infrav1.DockerMachineBackendSpec{}, hdm.Spec.Backend.Docker)
	require.NoError(t, old.Get(ctx, client.ObjectKeyFromObject(devM), devM))
	require.NotNil(t, devM.Spec.Backend.Docker, "read back at v1beta1 with the defaulted backend")

	// The manager goes away: v1beta2 still reads, v1beta1 fails and says why.
	stop()
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(dm), &infrav1.DockerMachine{}))
	err = old.Get(ctx, client.ObjectKeyFromObject(dm), &infrav1beta1.DockerMachine{})
	require.ErrorContains(t, err, "conversion webhook for infrastructure.cluster.x-k8s.io/v1beta2, Kind=DockerMachine failed")
}

// TestConversion_TwoReplicasShareOneTrustRootAndStopWriting runs two replicas of the provider's
// conversion webhook behind one Service (contracts/envtest.RequireConversionReplicasAgree): once
// both are ready they write no CRD, and a v1beta1 read converts through either replica.
func TestConversion_TwoReplicasShareOneTrustRootAndStopWriting(t *testing.T) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, "replicas")
	dc := &infrav1.DockerCluster{ObjectMeta: metav1.ObjectMeta{Name: "dc", Namespace: ns}}
	require.NoError(t, env.Client.Create(ctx, dc))
	old, err := client.New(env.Config, client.Options{Scheme: conversionScheme(t)})
	require.NoError(t, err)
	env.RequireConversionReplicasAgree(t, envtest.ConversionReplicas{
		Name: "infrastructure-docker", Scheme: conversionScheme(t), CRDs: servedCRDNames(), RBAC: []string{"../../rbac.go"},
		Setup: func(mgr ctrl.Manager, webhook conversionwebhook.Options) error {
			return conversionwebhook.Setup(mgr, webhook, Kinds())
		},
		Convert: func() error { return old.Get(ctx, client.ObjectKeyFromObject(dc), &infrav1beta1.DockerCluster{}) },
	})
}
