package dockermachinepool

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/node/nodetest"
)

func TestDockerMachinePool_ScalesWithTheCurrentBootstrapDataSurvivesARestartAndDeletesEverything(t *testing.T) {
	rt := nodetest.Docker(t)
	stop := startManager(t, rt, nil)
	ctx := context.Background()
	f := nodetest.NewFixture(t, env, rt, "alpha")
	f.SetInfrastructureProvisioned(t)
	mp, pool := newPool(t, f, "pool", fakeBootstrapData("first data"), poolOptions{replicas: ptr.To(int32(2))})

	start := time.Now()
	got := waitPool(t, pool, 90*time.Second, "2 instances provisioned", provisionedWith(2))
	t.Logf("timing: 2 instances created and bootstrapped: %s", time.Since(start).Round(100*time.Millisecond))
	first := poolContainers(t, rt, pool)
	require.Len(t, first, 2)
	require.Equal(t, providerIDs(first), got.Spec.ProviderIDList)
	require.Contains(t, got.Finalizers, infrav1.MachinePoolFinalizer)
	for _, c := range first {
		require.Regexp(t, "^"+regexp.QuoteMeta(mp.Name)+"-[a-z0-9]{5}$", c.Name)
		require.Equal(t, docker.RoleWorker, c.Role)
		require.Equal(t, docker.Owner{Namespace: f.NS, Cluster: "alpha"}, c.Owner)
		require.Equal(t, pool.Name, c.Labels[DockerMachinePoolLabel])
		require.Equal(t, "first data\n", nodetest.ExecOut(t, rt, &c, "cat", "/opt/capstan-test/data.txt"))
	}

	// The kubelets register the Nodes; the controller sets their providerID.
	nodetest.WaitCondition(t, env.Client, pool, 30*time.Second, infrav1.DockerMachinePoolReplicasReadyCondition, metav1.ConditionFalse,
		infrav1.DockerMachinePoolWaitingForNodesReason, "Waiting for the Nodes of 2 of 2 instances to carry their providerID; Waiting for Node "+first[0].Name+" to register")
	for _, c := range first {
		nodetest.CreateNode(t, env.Client, c.Name)
	}
	got = nodetest.WaitCondition(t, env.Client, pool, 30*time.Second, infrav1.DockerMachinePoolReadyCondition, metav1.ConditionTrue, infrav1.DockerMachinePoolReadyReason, "")
	for i, c := range first {
		node := &corev1.Node{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: c.Name}, node))
		require.Equal(t, "docker:////"+c.Name, node.Spec.ProviderID)
		require.Equal(t, infrav1.DockerMachinePoolInstanceStatus{
			InstanceName: c.Name, ProviderID: "docker:////" + c.Name, Bootstrapped: true, Ready: true,
			Addresses: clusterv1.MachineAddresses{{Type: clusterv1.MachineHostName, Address: c.Name}, {Type: clusterv1.MachineInternalIP, Address: c.IPv4}},
		}, got.Status.Instances[i])
	}
	require.Equal(t, got.Generation, got.Status.ObservedGeneration)

	t.Run("scaling up bootstraps the new instance with the data Secret's current content", func(t *testing.T) {
		// The bootstrap provider rotates its token: it re-renders the data Secret in place.
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.NS, Name: *mp.Spec.Template.Spec.Bootstrap.DataSecretName}}
		envtest.Update(t, env.Client, secret, func() { secret.Data["value"] = []byte(fakeBootstrapData("second data")) })
		scale(t, mp, 3)
		waitPool(t, pool, 60*time.Second, "3 instances provisioned", provisionedWith(3))
		all := poolContainers(t, rt, pool)
		require.Len(t, all, 3)
		for _, c := range all {
			want := "first data\n"
			if c.Name != first[0].Name && c.Name != first[1].Name {
				want = "second data\n"
				nodetest.CreateNode(t, env.Client, c.Name)
			}
			require.Equal(t, want, nodetest.ExecOut(t, rt, &c, "cat", "/opt/capstan-test/data.txt"), "data of %s", c.Name)
			require.Equal(t, "ran\n", nodetest.ExecOut(t, rt, &c, "cat", "/opt/capstan-test/runs"), "runs of %s", c.Name)
		}
		nodetest.WaitCondition(t, env.Client, pool, 30*time.Second, infrav1.DockerMachinePoolReadyCondition, metav1.ConditionTrue, infrav1.DockerMachinePoolReadyReason, "")
	})

	// Every instance is ready: scale down removes the newest first, the oldest stays.
	all := poolContainers(t, rt, pool)
	oldest := all[0]
	for _, c := range all[1:] {
		if c.Created.Before(oldest.Created) {
			oldest = c
		}
	}
	scale(t, mp, 1)
	got = waitPool(t, pool, 60*time.Second, "1 instance left", provisionedWith(1))
	left := poolContainers(t, rt, pool)
	require.Equal(t, []string{oldest.Name}, names(left), "the oldest instance stays")
	require.Equal(t, oldest.ID, left[0].ID)
	require.Equal(t, providerIDs(left), got.Spec.ProviderIDList)
	vols, err := rt.Volumes(ctx)
	require.NoError(t, err)
	require.Len(t, vols, 1, "the removed instances' volumes are removed")
	require.Equal(t, oldest.Name+"-var", vols[0].Name)

	// A restarted controller finds the instance in the engine: it creates no other and does not
	// bootstrap it again, even with nothing recorded in status (as after a crash before the
	// status write).
	stop()
	envtest.UpdateStatus(t, env.Client, got, func() { got.Status.Instances = nil })
	rec := recordInstances(t, pool)
	startManager(t, rt, nil)
	got = waitPool(t, pool, 60*time.Second, "the instance recorded again", func(p *infrav1.DockerMachinePool) error {
		if len(p.Status.Instances) != 1 || !p.Status.Instances[0].Bootstrapped || !p.Status.Instances[0].Ready {
			return fmt.Errorf("instances %+v", p.Status.Instances)
		}
		return nil
	})
	require.Equal(t, []string{oldest.Name}, rec.namesUpTo(t, got), "a restarted controller created another instance, even for a moment")
	after := poolContainers(t, rt, pool)
	require.Len(t, after, 1, "a restarted controller created a duplicate")
	require.Equal(t, oldest.ID, after[0].ID)
	require.Equal(t, oldest.Name, got.Status.Instances[0].InstanceName)
	require.Equal(t, "ran\n", nodetest.ExecOut(t, rt, &after[0], "cat", "/opt/capstan-test/runs"), "the bootstrap ran a second time")
	require.True(t, conditions.IsTrue(got, infrav1.DockerMachinePoolReadyCondition))

	t.Run("deleting removes every instance and its volume, then the finalizer", func(t *testing.T) {
		// A finalizer of the test's keeps the object after the controller's is gone, so that
		// the Deleting condition it left can be read.
		const hold = "capstan.dev/test-hold"
		envtest.Update(t, env.Client, pool, func() { controllerutil.AddFinalizer(pool, hold) })
		require.NoError(t, env.Client.Delete(ctx, pool))
		got := waitPool(t, pool, 60*time.Second, "finalizer removed", func(p *infrav1.DockerMachinePool) error {
			if controllerutil.ContainsFinalizer(p, infrav1.MachinePoolFinalizer) {
				return fmt.Errorf("finalizers %v", p.Finalizers)
			}
			return nil
		})
		deleting := conditions.Get(got, infrav1.DockerMachinePoolDeletingCondition)
		require.NotNil(t, deleting)
		require.Equal(t, metav1.ConditionTrue, deleting.Status)
		require.Equal(t, infrav1.DockerMachinePoolDeletingReason, deleting.Reason)
		require.Equal(t, "Removing 1 node containers and their volumes: "+oldest.Name, deleting.Message)
		require.Equal(t, "DockerMachinePool is being deleted", conditions.Get(got, infrav1.DockerMachinePoolReadyCondition).Message)
		require.Empty(t, poolContainers(t, rt, pool))
		for _, c := range all {
			_, err := rt.Inspect(ctx, c.Name)
			require.ErrorIs(t, err, docker.ErrNotFound, c.Name)
		}
		vols, err := rt.Volumes(ctx)
		require.NoError(t, err)
		require.Empty(t, vols)

		envtest.Update(t, env.Client, pool, func() { controllerutil.RemoveFinalizer(pool, hold) })
		nodetest.WaitGone(t, env.Client, pool, 30*time.Second)
	})
}

func TestDockerMachinePool_FailedBootstrapIsReportedAndItsInstanceRemovedFirst(t *testing.T) {
	rt := nodetest.Docker(t)
	startManager(t, rt, nil)
	f := nodetest.NewFixture(t, env, rt, "beta")
	f.SetInfrastructureProvisioned(t)
	mp, pool := newPool(t, f, "pool", "#cloud-config\nruncmd:\n- echo step one\n- [sh, -c, \"echo bad data >&2; exit 3\"]\n",
		poolOptions{replicas: ptr.To(int32(1))})

	got := nodetest.WaitCondition(t, env.Client, pool, 60*time.Second, infrav1.DockerMachinePoolReplicasReadyCondition, metav1.ConditionFalse,
		infrav1.DockerMachinePoolBootstrapFailedReason, "The bootstrap of 1 of 1 instances failed; instance ")
	failed := poolContainers(t, rt, pool)
	require.Len(t, failed, 1)
	msg := conditions.Get(got, infrav1.DockerMachinePoolReplicasReadyCondition).Message
	for _, want := range []string{failed[0].Name + ": Bootstrap command 2 exited with 3", "bad data", "step one", "docker rm -f " + failed[0].Name} {
		require.Contains(t, msg, want)
	}
	require.Equal(t, msg, conditions.Get(got, infrav1.DockerMachinePoolReadyCondition).Message, "Ready says what ReplicasReady says")
	require.Nil(t, got.Status.Initialization.Provisioned)
	require.Equal(t, []string{"docker:////" + failed[0].Name}, got.Spec.ProviderIDList, "an existing instance is listed")

	// The data is fixed and the pool scaled up: the new instance bootstraps, the failed one
	// stays failed (never bootstrapped twice).
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.NS, Name: *mp.Spec.Template.Spec.Bootstrap.DataSecretName}}
	envtest.Update(t, env.Client, secret, func() { secret.Data["value"] = []byte(fakeBootstrapData("fixed")) })
	scale(t, mp, 2)
	waitPool(t, pool, 60*time.Second, "the new instance bootstrapped", func(p *infrav1.DockerMachinePool) error {
		if len(p.Status.Instances) != 2 {
			return fmt.Errorf("%d instances", len(p.Status.Instances))
		}
		for _, in := range p.Status.Instances {
			if in.Bootstrapped == (in.InstanceName == failed[0].Name) {
				return fmt.Errorf("instance %s bootstrapped=%t", in.InstanceName, in.Bootstrapped)
			}
		}
		return nil
	})

	// Scaling down removes the failed instance although it is the older one.
	scale(t, mp, 1)
	waitPool(t, pool, 60*time.Second, "1 bootstrapped instance left", provisionedWith(1))
	left := poolContainers(t, rt, pool)
	require.Len(t, left, 1)
	require.NotEqual(t, failed[0].Name, left[0].Name)
	require.True(t, left[0].Created.After(failed[0].Created))
	require.Equal(t, "fixed\n", nodetest.ExecOut(t, rt, &left[0], "cat", "/opt/capstan-test/data.txt"))
}

func TestDockerMachinePool_WaitsForItsOwnerTheInfrastructureAndTheBootstrapData(t *testing.T) {
	rt := nodetest.Docker(t)
	startManager(t, rt, nil)
	f := nodetest.NewFixture(t, env, rt, "gamma")
	mp, pool := newPool(t, f, "pool", fakeBootstrapData("data"), poolOptions{noOwner: true, noDataSecret: true})

	waitReplicasReady := func(reason, want string) *infrav1.DockerMachinePool {
		t.Helper()
		got := nodetest.WaitCondition(t, env.Client, pool, 30*time.Second, infrav1.DockerMachinePoolReplicasReadyCondition, metav1.ConditionFalse, reason, want)
		ready := conditions.Get(got, infrav1.DockerMachinePoolReadyCondition)
		require.Equal(t, metav1.ConditionFalse, ready.Status)
		require.Contains(t, ready.Message, want)
		return got
	}
	got := waitReplicasReady(infrav1.DockerMachinePoolWaitingForMachinePoolReason,
		"Waiting for the MachinePool controller to set an owner reference to the MachinePool that uses this DockerMachinePool")
	require.NotContains(t, got.Finalizers, infrav1.MachinePoolFinalizer, "nothing to clean up before an owner is known")

	envtest.Update(t, env.Client, pool, func() { pool.OwnerReferences = ownerRefs(mp) })
	got = waitReplicasReady(infrav1.DockerMachinePoolWaitingForClusterInfrastructureReason, "Waiting for Cluster gamma infrastructure to be provisioned")
	require.Contains(t, got.Finalizers, infrav1.MachinePoolFinalizer)

	f.SetInfrastructureProvisioned(t)
	waitReplicasReady(infrav1.DockerMachinePoolWaitingForBootstrapDataReason,
		"Waiting for MachinePool "+mp.Name+" to have spec.template.spec.bootstrap.dataSecretName (set by its bootstrap provider)")
	require.Empty(t, poolContainers(t, rt, pool))

	// The bootstrap provider's part: the data Secret's name in the template. spec.replicas is
	// unset: one instance.
	envtest.Update(t, env.Client, mp, func() { mp.Spec.Template.Spec.Bootstrap.DataSecretName = ptr.To(mp.Name + "-bootstrap") })
	waitPool(t, pool, 60*time.Second, "1 instance provisioned", provisionedWith(1))
	require.Len(t, poolContainers(t, rt, pool), 1)
}

func TestDockerMachinePool_PausedClusterOrPoolIsNotScaled(t *testing.T) {
	rt := nodetest.Docker(t)
	startManager(t, rt, nil)
	f := nodetest.NewFixture(t, env, rt, "delta")
	f.SetInfrastructureProvisioned(t)
	mp, pool := newPool(t, f, "pool", fakeBootstrapData("data"), poolOptions{replicas: ptr.To(int32(1))})
	waitPool(t, pool, 60*time.Second, "1 instance provisioned", provisionedWith(1))
	countStays := func(n int) {
		t.Helper()
		require.Never(t, func() bool { return len(poolContainers(t, rt, pool)) != n }, 3*time.Second, 200*time.Millisecond,
			"a paused pool was scaled")
	}

	envtest.Update(t, env.Client, f.Cluster, func() { f.Cluster.Spec.Paused = ptr.To(true) })
	scale(t, mp, 2) // the MachinePool's update triggers a reconcile, which sees the pause
	nodetest.WaitCondition(t, env.Client, pool, 30*time.Second, clusterv1.PausedCondition, metav1.ConditionTrue, clusterv1.PausedReason, "Cluster spec.paused is true")
	countStays(1)
	envtest.Update(t, env.Client, f.Cluster, func() { f.Cluster.Spec.Paused = nil })
	waitPool(t, pool, 60*time.Second, "2 instances once the Cluster is resumed", provisionedWith(2))

	envtest.Update(t, env.Client, pool, func() { pool.Annotations = map[string]string{clusterv1.PausedAnnotation: ""} })
	nodetest.WaitCondition(t, env.Client, pool, 30*time.Second, clusterv1.PausedCondition, metav1.ConditionTrue, clusterv1.PausedReason, "the object has the")
	scale(t, mp, 1)
	countStays(2)
	envtest.Update(t, env.Client, pool, func() { delete(pool.Annotations, clusterv1.PausedAnnotation) })
	waitPool(t, pool, 60*time.Second, "1 instance once the pool is resumed", provisionedWith(1))
	nodetest.WaitCondition(t, env.Client, pool, 30*time.Second, clusterv1.PausedCondition, metav1.ConditionFalse, clusterv1.NotPausedReason, "")
}

func TestDockerMachinePool_RunsWithItsRBACMarkersOnly(t *testing.T) {
	rt := nodetest.Docker(t)
	startManager(t, rt, env.UserFromRBACMarkers(t, "dockermachinepool-controller", "controller.go", "../../../rbac.go"))
	ctx := context.Background()
	f := nodetest.NewFixture(t, env, rt, "rbac")
	f.SetInfrastructureProvisioned(t)
	_, pool := newPool(t, f, "pool", fakeBootstrapData("data"), poolOptions{replicas: ptr.To(int32(1))})
	waitPool(t, pool, 60*time.Second, "1 instance provisioned", provisionedWith(1))
	nodetest.CreateNode(t, env.Client, poolContainers(t, rt, pool)[0].Name)
	nodetest.WaitCondition(t, env.Client, pool, 30*time.Second, infrav1.DockerMachinePoolReadyCondition, metav1.ConditionTrue, infrav1.DockerMachinePoolReadyReason, "")
	require.NoError(t, env.Client.Delete(ctx, pool))
	nodetest.WaitGone(t, env.Client, pool, 60*time.Second)
	require.Empty(t, poolContainers(t, rt, pool))
	// The Events reach the API server: the markers grant writing them.
	env.WaitForEvents(t, 30*time.Second, pool, ReasonSuccessfulCreate, 1)
	env.WaitForEvents(t, 30*time.Second, pool, ReasonSuccessfulDelete, 1)
}

func TestInstanceName_IsTheMachinePoolNameAndFiveRandomCharactersWithinAHostname(t *testing.T) {
	taken := map[string]bool{}
	for range 50 {
		name := instanceName("workers", taken)
		require.Regexp(t, "^workers-[a-z0-9]{5}$", name)
		require.False(t, taken[name], "a taken name was drawn")
		taken[name] = true
	}
	long := strings.Repeat("a", 56) + "-" + strings.Repeat("b", 20) // the cut falls after the dash
	name := instanceName(long, nil)
	require.LessOrEqual(t, len(name), 63)
	require.Regexp(t, "^"+strings.Repeat("a", 56)+"-[a-z0-9]{5}$", name, "the cut prefix loses its trailing dash")
}

func TestScaleDownOrder_NotBootstrappedThenNotReadyThenNewestFirst(t *testing.T) {
	at := func(sec int) time.Time { return time.Unix(1_800_000_000+int64(sec), 0) }
	in := func(name string, created time.Time, bootstrapped, ready bool) *instance {
		return &instance{container: docker.Container{Name: name, Created: created},
			recorded: infrav1.DockerMachinePoolInstanceStatus{InstanceName: name, Bootstrapped: bootstrapped, Ready: ready}}
	}
	got := scaleDownOrder([]*instance{
		in("ready-old", at(1), true, true),
		in("ready-new", at(5), true, true),
		in("failed-old", at(0), false, false),
		in("bootstrapped-old", at(2), true, false),
		in("new-a", at(9), false, false),
		in("new-b", at(9), false, false),
	})
	var order []string
	for _, i := range got {
		order = append(order, i.container.Name)
	}
	require.Equal(t, []string{"new-b", "new-a", "failed-old", "bootstrapped-old", "ready-new", "ready-old"}, order)
}
