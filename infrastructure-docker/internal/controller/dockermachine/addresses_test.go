package dockermachine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	dockerclient "github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/envtest"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/node/nodetest"
)

// sentinelOnly is bootstrap data that only writes the success sentinel.
const sentinelOnly = `#cloud-config
runcmd:
- mkdir -p /run/cluster-api && echo success > /run/cluster-api/bootstrap-success.complete
`

func TestDockerMachine_EveryNodeListsTheOtherNodesOfItsClusterInEtcHosts(t *testing.T) {
	rt := dockerFor(t)
	stop := startManager(t, rt, managerOptions{})
	ctx := context.Background()
	f := newFixture(t, rt, "hosts")
	f.SetInfrastructureProvisioned(t)
	newNode := func(name string) *infrav1.DockerMachine {
		_, dm := f.newMachine(t, name, sentinelOnly, machineOptions{})
		waitCondition(t, dm, 60*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionTrue, infrav1.DockerMachineBootstrapExecSucceededReason, "")
		return dm
	}

	w0, w1 := newNode("w0"), newNode("w1")
	f.WaitHosts(t, 2)

	t.Run("an older node learns of a newer one", func(t *testing.T) {
		newNode("w2")
		f.WaitHosts(t, 3)
	})

	t.Run("nothing is written when the block is right", func(t *testing.T) {
		c := nodeContainers(t, rt, w0)[0]
		execs := watchExecs(t, c.ID)
		// Two reconciles of w0, one after the other: each reads /etc/hosts once; a write would
		// follow the first read.
		for i := 1; i <= 2; i++ {
			envtest.Update(t, env.Client, w0, func() { metav1.SetMetaDataAnnotation(&w0.ObjectMeta, "test.capstan.dev/poke", strconv.Itoa(i)) })
			envtest.WaitFor(t, 30*time.Second, fmt.Sprintf("reconcile %d of %s read /etc/hosts", i, w0.Name), func() (bool, error) {
				return execs.count(hostsRead) >= i, nil
			})
		}
		require.Zero(t, execs.count(hostsWrite), "execs in %s: %v", c.Name, execs.all())
	})

	t.Run("a removed node is no longer listed", func(t *testing.T) {
		gone := nodeContainers(t, rt, w1)[0]
		require.NoError(t, env.Client.Delete(ctx, w1))
		waitGone(t, w1)
		f.WaitHosts(t, 2)
		for _, c := range f.RunningNodes(t) {
			require.NotContains(t, execOut(t, rt, &c, "cat", "/etc/hosts"), gone.Name)
		}
	})

	t.Run("a restarted controller rewrites a block it did not write", func(t *testing.T) {
		// As after a restart of the container, which makes Docker write /etc/hosts anew, while
		// no controller was running.
		stop()
		c := nodeContainers(t, rt, w0)[0]
		// In place: /etc/hosts is a bind mount, sed -i cannot rename over it.
		execOut(t, rt, &c, "sh", "-c", `sed '/^# capstan nodes begin$/,/^# capstan nodes end$/d' /etc/hosts > /tmp/hosts && cat /tmp/hosts > /etc/hosts`)
		require.NotContains(t, execOut(t, rt, &c, "cat", "/etc/hosts"), "capstan nodes")
		startManager(t, rt, managerOptions{})
		f.WaitHosts(t, 2)
	})
}

func TestDockerMachine_EndpointRouteFollowsARecreatedLoadBalancer(t *testing.T) {
	rt := dockerFor(t, "capstan/node:"+kubernetesVersion)
	stop := startManager(t, rt, managerOptions{withDockerCluster: true})
	ctx := context.Background()
	f := newFixture(t, rt, "route")
	dc := provisionLoadBalancer(t, rt, f.Cluster)
	f.SetInfrastructureProvisioned(t)
	port := int(dc.Spec.ControlPlaneEndpoint.Port)
	oldLB := dc.Annotations[infrav1.LoadBalancerAddressAnnotation]
	require.NotEmpty(t, oldLB)

	// Bootstrap data with a kubeadm file makes the provider install the endpoint route; no
	// kubeadm runs.
	_, dm := f.newMachine(t, "cp0", `#cloud-config
write_files:
- path: /run/kubeadm/kubeadm-join-config.yaml
  content: |
    apiVersion: kubeadm.k8s.io/v1beta4
    kind: JoinConfiguration
runcmd:
- mkdir -p /run/cluster-api && echo success > /run/cluster-api/bootstrap-success.complete
`, machineOptions{controlPlane: true, nodeImage: true})
	waitCondition(t, dm, 60*time.Second, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionTrue, infrav1.DockerMachineBootstrapExecSucceededReason, "")
	c := nodeContainers(t, rt, dm)[0]
	require.Equal(t, []string{oldLB}, dnatTargets(t, rt, &c, port))

	// The load balancer is removed while no controller runs, and its address is taken meanwhile,
	// so that the re-created one gets another (Docker hands out the lowest free address).
	stop()
	lb, err := rt.Inspect(ctx, f.Cluster.Name+"-lb")
	require.NoError(t, err)
	raw, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	require.NoError(t, err)
	defer raw.Close()
	require.NoError(t, raw.ContainerRemove(ctx, lb.ID, container.RemoveOptions{Force: true}))
	filler, err := rt.Create(ctx, docker.ContainerSpec{Name: f.Name("filler"), Image: testImage, Owner: docker.Owner{Namespace: f.NS, Cluster: "filler"}, Role: docker.RoleWorker})
	require.NoError(t, err)
	t.Logf("the load balancer was at %s; the filler container took %s", oldLB, filler.IPv4)

	startManager(t, rt, managerOptions{withDockerCluster: true})
	var newLB string
	envtest.WaitFor(t, 60*time.Second, "the DockerCluster publishes the re-created load balancer's address", func() (bool, error) {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(dc), dc); err != nil {
			return false, err
		}
		newLB = dc.Annotations[infrav1.LoadBalancerAddressAnnotation]
		return newLB != oldLB, nil
	})
	lbName := f.Cluster.Name + "-lb"
	newIP, _, _ := strings.Cut(newLB, ":")
	envtest.WaitFor(t, 30*time.Second, "the node's endpoint route and /etc/hosts point at "+newLB, func() (bool, error) {
		targets := dnatTargets(t, rt, &c, port)
		hosts := nodetest.HostsEntries(t, rt, &c)
		if len(targets) != 1 || targets[0] != newLB || hosts[lbName] != newIP {
			return false, fmt.Errorf("DNAT targets %v, hosts %v", targets, hosts)
		}
		return true, nil
	})
	rules := execOut(t, rt, &c, "iptables", "-t", "nat", "-S", "POSTROUTING")
	require.Contains(t, rules, "-A POSTROUTING -s 127.0.0.1/32 -d "+newIP+"/32 -p tcp -m tcp --dport 6443 -j MASQUERADE")
	oldIP, _, _ := strings.Cut(oldLB, ":")
	require.NotContains(t, rules, oldIP+"/32", "the masquerade rule of the old address")
	require.Contains(t, execOut(t, rt, &c, "cat", "/etc/capstan/endpoint-route.sh"), newLB, "the script the node runs at boot")
}

// dnatTargets are the destinations of the node's DNAT rules for the endpoint port.
func dnatTargets(t *testing.T, rt *docker.Runtime, c *docker.Container, port int) []string {
	t.Helper()
	var out []string
	prefix := fmt.Sprintf("-A OUTPUT -d 127.0.0.1/32 -p tcp -m tcp --dport %d -j DNAT --to-destination ", port)
	for _, line := range strings.Split(execOut(t, rt, c, "iptables", "-t", "nat", "-S", "OUTPUT"), "\n") {
		if target, ok := strings.CutPrefix(line, prefix); ok {
			out = append(out, target)
		}
	}
	return out
}

// The commands the provider runs to read and to write a node's /etc/hosts, as Docker's
// exec_create events show them.
const (
	hostsRead  = "--- capstan: next section ---"
	hostsWrite = `cat > "$1" sh /etc/hosts`
)

// execLog collects the commands exec'd in one container while the test runs.
type execLog struct {
	mu       sync.Mutex
	commands []string
}

// watchExecs follows the engine's exec_create events of container id until the test ends.
func watchExecs(t *testing.T, id string) *execLog {
	t.Helper()
	raw, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	msgs, errs := raw.Events(ctx, events.ListOptions{Filters: filters.NewArgs(
		filters.Arg("type", string(events.ContainerEventType)), filters.Arg("container", id))})
	l := &execLog{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case m := <-msgs:
				if cmd, ok := strings.CutPrefix(string(m.Action), "exec_create: "); ok {
					l.mu.Lock()
					l.commands = append(l.commands, cmd)
					l.mu.Unlock()
				}
			case <-errs:
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done; _ = raw.Close() })
	return l
}

func (l *execLog) count(substr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.commands {
		if strings.Contains(c, substr) {
			n++
		}
	}
	return n
}

func (l *execLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.commands...)
}
