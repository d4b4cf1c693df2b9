package dockermachine

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	dockerclient "github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
)

func gzipBase64(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// fakeBootstrapData exercises every write_files form and both runcmd forms; each run of the
// commands appends a line to /opt/capstan-test/runs, so a second bootstrap would show.
func fakeBootstrapData(t *testing.T) string {
	return `#cloud-config
users:
- name: ops
write_files:
- path: /opt/capstan-test/plain.txt
  content: |
    plain
  owner: nobody:nogroup
  permissions: "0600"
- path: /opt/capstan-test/log.txt
  content: |
    first
- path: /opt/capstan-test/log.txt
  append: true
  content: |
    appended
- path: /opt/capstan-test/b64.txt
  encoding: b64
  content: ` + base64.StdEncoding.EncodeToString([]byte("from base64\n")) + `
- path: /opt/capstan-test/gzb64.txt
  encoding: gz+b64
  permissions: "0755"
  content: ` + gzipBase64(t, "from gzip+base64\n") + `
runcmd:
- [sh, -c, "echo ran >> /opt/capstan-test/runs"]
- mkdir -p /run/cluster-api && echo success > /run/cluster-api/bootstrap-success.complete
`
}

func TestDockerMachine_CreatesBootstrapsAndDeletesTheNodeContainer(t *testing.T) {
	rt := dockerFor(t)
	stop := startManager(t, rt, managerOptions{})
	ctx := context.Background()
	f := newFixture(t, rt, "alpha")
	f.SetInfrastructureProvisioned(t)
	machine, dm := f.newMachine(t, "w0", fakeBootstrapData(t), machineOptions{failureDomain: "fd-1"})
	name := machine.Name

	// The Node registers (the kubelet's part); the controller sets its providerID.
	waitCondition(t, dm, 60*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionTrue, infrav1.DockerMachineBootstrapExecSucceededReason, "")
	waitCondition(t, dm, 30*time.Second, infrav1.DockerMachineReadyCondition, metav1.ConditionFalse, infrav1.DockerMachineNotReadyReason,
		"Waiting for Node "+name+" to register")
	createNode(t, name)
	got := waitCondition(t, dm, 30*time.Second, infrav1.DockerMachineReadyCondition, metav1.ConditionTrue, infrav1.DockerMachineReadyReason, "")

	containers := nodeContainers(t, rt, dm)
	require.Len(t, containers, 1)
	c := containers[0]
	require.Equal(t, name, c.Name)
	require.True(t, c.Running)
	require.Equal(t, docker.Owner{Namespace: f.NS, Cluster: "alpha"}, c.Owner)
	require.Equal(t, docker.RoleWorker, c.Role)
	for k, v := range map[string]string{docker.ProviderLabel: docker.ProviderName, docker.PlaneLabel: rt.Plane(),
		docker.ClusterNamespaceLabel: f.NS, docker.ClusterLabel: "alpha", docker.RoleLabel: "worker", DockerMachineLabel: dm.Name} {
		require.Equal(t, v, c.Labels[k], "label %s", k)
	}
	vols, err := rt.Volumes(ctx)
	require.NoError(t, err)
	require.Len(t, vols, 1)
	require.Equal(t, name+"-var", vols[0].Name)
	require.Equal(t, name, vols[0].Labels[docker.ContainerLabel])

	require.Equal(t, "docker:////"+name, got.Spec.ProviderID)
	require.Equal(t, clusterv1.MachineAddresses{{Type: clusterv1.MachineHostName, Address: name}, {Type: clusterv1.MachineInternalIP, Address: c.IPv4}}, got.Status.Addresses)
	require.Equal(t, "fd-1", got.Status.FailureDomain)
	require.Equal(t, ptr.To(true), got.Status.Initialization.Provisioned)
	require.Contains(t, got.Finalizers, infrav1.MachineFinalizer)
	require.True(t, conditions.IsTrue(got, infrav1.DockerMachineContainerProvisionedCondition))
	node := &corev1.Node{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: name}, node))
	require.Equal(t, "docker:////"+name, node.Spec.ProviderID)

	t.Run("the bootstrap data was executed", func(t *testing.T) {
		require.Equal(t, "plain\n", execOut(t, rt, &c, "cat", "/opt/capstan-test/plain.txt"))
		require.Equal(t, "first\nappended\n", execOut(t, rt, &c, "cat", "/opt/capstan-test/log.txt"))
		require.Equal(t, "600 nobody:nogroup\n", execOut(t, rt, &c, "stat", "-c", "%a %U:%G", "/opt/capstan-test/plain.txt"))
		require.Equal(t, "from base64\n", execOut(t, rt, &c, "cat", "/opt/capstan-test/b64.txt"))
		require.Equal(t, "from gzip+base64\n", execOut(t, rt, &c, "cat", "/opt/capstan-test/gzb64.txt"))
		require.Equal(t, "755 root:root\n", execOut(t, rt, &c, "stat", "-c", "%a %U:%G", "/opt/capstan-test/gzb64.txt"))
		require.Equal(t, "ran\n", execOut(t, rt, &c, "cat", "/opt/capstan-test/runs"))
		require.Equal(t, "1\n", execOut(t, rt, &c, "cat", "/proc/sys/net/ipv4/conf/all/route_localnet"), "the namespaced sysctl of the node")
	})

	// A restarted manager adopts the container and does not bootstrap again.
	stop()
	// Forget what the first manager recorded: the second must find the container and the
	// sentinel in it.
	envtest.UpdateStatus(t, env.Client, got, func() {
		got.Status.Addresses = nil
		conditions.Delete(got, infrav1.DockerMachineBootstrapExecSucceededCondition)
	})
	startManager(t, rt, managerOptions{})
	envtest.WaitFor(t, 60*time.Second, "addresses and bootstrap recorded again", func() (bool, error) {
		again, err := getDockerMachine(dm)
		if err != nil {
			return false, err
		}
		return len(again.Status.Addresses) == 2 && conditions.IsTrue(again, infrav1.DockerMachineBootstrapExecSucceededCondition), nil
	})
	after := nodeContainers(t, rt, dm)
	require.Len(t, after, 1, "a restarted manager must not create a second container")
	require.Equal(t, c.ID, after[0].ID)
	require.Equal(t, "ran\n", execOut(t, rt, &c, "cat", "/opt/capstan-test/runs"), "the bootstrap ran a second time")

	t.Run("deleting removes the container, its volume and the finalizer", func(t *testing.T) {
		require.NoError(t, env.Client.Delete(ctx, dm))
		waitGone(t, dm)
		require.Empty(t, nodeContainers(t, rt, dm))
		_, err := rt.Inspect(ctx, name)
		require.ErrorIs(t, err, docker.ErrNotFound)
		vols, err := rt.Volumes(ctx)
		require.NoError(t, err)
		require.Empty(t, vols)
	})
}

func TestDockerMachine_WaitsForInfrastructureAndBootstrapData(t *testing.T) {
	rt := dockerFor(t)
	startManager(t, rt, managerOptions{})
	ctx := context.Background()
	f := newFixture(t, rt, "beta")
	machine, dm := f.newMachine(t, "w0", "", machineOptions{noSecret: true})

	waitCondition(t, dm, 30*time.Second, infrav1.DockerMachineContainerProvisionedCondition, metav1.ConditionFalse,
		infrav1.DockerMachineWaitingForClusterInfrastructureReason, "Waiting for Cluster beta infrastructure to be provisioned")
	f.SetInfrastructureProvisioned(t)
	waitCondition(t, dm, 30*time.Second, infrav1.DockerMachineContainerProvisionedCondition, metav1.ConditionFalse,
		infrav1.DockerMachineWaitingForBootstrapDataReason, "Waiting for Machine "+machine.Name+" to have spec.bootstrap.dataSecretName")
	got := waitCondition(t, dm, 30*time.Second, infrav1.DockerMachineReadyCondition, metav1.ConditionFalse, infrav1.DockerMachineNotReadyReason,
		"Waiting for Machine "+machine.Name+" to have spec.bootstrap.dataSecretName")
	require.Empty(t, nodeContainers(t, rt, dm))
	require.Empty(t, got.Spec.ProviderID)

	// The bootstrap provider writes the Secret and the Machine points at it.
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.NS, Name: machine.Name + "-data"},
		Data:       map[string][]byte{"value": []byte(fakeBootstrapData(t))},
	}))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(machine), machine))
	machine.Spec.Bootstrap.DataSecretName = ptr.To(machine.Name + "-data")
	require.NoError(t, env.Client.Update(ctx, machine))
	waitCondition(t, dm, 60*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionTrue, infrav1.DockerMachineBootstrapExecSucceededReason, "")
	require.Len(t, nodeContainers(t, rt, dm), 1)
}

func TestDockerMachine_ContainerDeletedByHandIsReportedNotRecreated(t *testing.T) {
	rt := dockerFor(t)
	startManager(t, rt, managerOptions{})
	ctx := context.Background()
	f := newFixture(t, rt, "gamma")
	f.SetInfrastructureProvisioned(t)
	machine, dm := f.newMachine(t, "cp0", fakeBootstrapData(t), machineOptions{controlPlane: true})
	createNode(t, machine.Name)
	waitCondition(t, dm, 60*time.Second, infrav1.DockerMachineReadyCondition, metav1.ConditionTrue, infrav1.DockerMachineReadyReason, "")
	c := nodeContainers(t, rt, dm)[0]
	require.Equal(t, docker.RoleControlPlane, c.Role)

	// By hand, as `docker rm -f` does: the container goes, its named /var volume stays. The
	// destroy event re-triggers the controller.
	raw, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	require.NoError(t, err)
	defer raw.Close()
	require.NoError(t, raw.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true}))
	volumesOf := func() []string {
		vols, err := rt.Volumes(ctx)
		require.NoError(t, err)
		names := []string{}
		for _, v := range vols {
			if v.Labels[docker.ContainerLabel] == machine.Name {
				names = append(names, v.Name)
			}
		}
		return names
	}
	require.NotEmpty(t, volumesOf(), "the named volume outlives a container removed by hand")
	got := waitCondition(t, dm, 30*time.Second, infrav1.DockerMachineContainerProvisionedCondition, metav1.ConditionFalse,
		infrav1.DockerMachineContainerDeletedReason, "Container "+machine.Name+" no longer exists")
	require.True(t, conditions.Get(got, infrav1.DockerMachineReadyCondition).Status == metav1.ConditionFalse)
	require.Contains(t, conditions.Get(got, infrav1.DockerMachineReadyCondition).Message, "MachineHealthCheck remediates")
	require.Equal(t, ptr.To(true), got.Status.Initialization.Provisioned, "provisioned is a one-way milestone")
	require.Never(t, func() bool { return len(nodeContainers(t, rt, dm)) > 0 }, 3*time.Second, 500*time.Millisecond, "the container was re-created")

	// Deleting still works and removes the volume the container left.
	require.NoError(t, env.Client.Delete(ctx, dm))
	waitGone(t, dm)
	require.Empty(t, volumesOf(), "the volume of the container removed by hand")
}

func TestDockerMachine_MissingImageNamesTheMakeCommand(t *testing.T) {
	rt := dockerFor(t)
	startManager(t, rt, managerOptions{})
	f := newFixture(t, rt, "delta")
	f.SetInfrastructureProvisioned(t)
	_, dm := f.newMachine(t, "w0", fakeBootstrapData(t), machineOptions{version: "v1.99.0", nodeImage: true})
	waitCondition(t, dm, 30*time.Second, infrav1.DockerMachineContainerProvisionedCondition, metav1.ConditionFalse, infrav1.DockerMachineImageNotFoundReason,
		"Image capstan/node:v1.99.0 is not on the Docker Engine and is never pulled: build it with `make node-image KUBERNETES_VERSION=v1.99.0`")
	require.Empty(t, nodeContainers(t, rt, dm))
}

func TestDockerMachine_FailingOrSlowBootstrapEndsInAFalseCondition(t *testing.T) {
	rt := dockerFor(t)
	startManager(t, rt, managerOptions{})
	f := newFixture(t, rt, "eps")
	f.SetInfrastructureProvisioned(t)
	_, failing := f.newMachine(t, "fail", `#cloud-config
runcmd:
- echo step one
- [sh, -c, "echo something went wrong >&2; exit 3"]
- echo never reached
`, machineOptions{})
	got := waitCondition(t, failing, 60*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionFalse,
		infrav1.DockerMachineBootstrapFailedReason, "Bootstrap command 2 exited with 3")
	msg := conditions.Get(got, infrav1.DockerMachineBootstrapExecSucceededCondition).Message
	require.Contains(t, msg, "something went wrong")
	require.Contains(t, msg, "step one")
	require.NotContains(t, msg, "never reached")

	_, slow := f.newMachine(t, "slow", "#cloud-config\nruncmd:\n- echo waiting\n- sleep 600\n",
		machineOptions{mutate: func(dm *infrav1.DockerMachine) {
			dm.Spec.BootstrapTimeout = &metav1.Duration{Duration: 3 * time.Second}
		}})
	got = waitCondition(t, slow, 60*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionFalse,
		infrav1.DockerMachineBootstrapTimedOutReason, "did not finish within 3s")
	require.Contains(t, conditions.Get(got, infrav1.DockerMachineBootstrapExecSucceededCondition).Message, "waiting")
	c := nodeContainers(t, rt, slow)[0]
	require.Equal(t, "", strings.TrimSpace(execOut(t, rt, &c, "sh", "-c", "grep -las 'slee[p].600' /proc/[0-9]*/cmdline || true")), "the timed-out command still runs")
	require.Contains(t, conditions.Get(got, infrav1.DockerMachineReadyCondition).Message, "did not finish")
}

func TestDockerMachine_RunsWithItsRBACMarkersOnly(t *testing.T) {
	rt := dockerFor(t)
	startManager(t, rt, managerOptions{cfg: env.UserFromRBACMarkers(t, "dockermachine-controller", "controller.go", "../../../rbac.go")})
	ctx := context.Background()
	f := newFixture(t, rt, "rbac")
	f.SetInfrastructureProvisioned(t)
	machine, dm := f.newMachine(t, "w0", fakeBootstrapData(t), machineOptions{})
	createNode(t, machine.Name)
	waitCondition(t, dm, 60*time.Second, infrav1.DockerMachineReadyCondition, metav1.ConditionTrue, infrav1.DockerMachineReadyReason, "")
	require.NoError(t, env.Client.Delete(ctx, dm))
	waitGone(t, dm)
	require.Empty(t, nodeContainers(t, rt, dm))
	// The Events reach the API server: the markers grant writing them.
	for _, reason := range []string{ReasonSuccessfulCreate, ReasonSuccessfulBootstrap, ReasonSuccessfulDelete} {
		env.WaitForEvents(t, 30*time.Second, dm, reason, 1)
	}
}
