package node

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	dockerclient "github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/docker"
	"capstan.dev/infrastructure-docker/internal/docker/dockertest"
)

// These tests run the bootstrap protocol (see the package doc) in real containers of the small
// test image, and reproduce each point where a killed provider stops: the steps are executed
// alone, then a fresh Bootstrap call plays the restarted provider.

// bootstrapTestImage is the small image of the fake-node tests (nodetest.TestImage): a shell and
// coreutils, no systemd.
const bootstrapTestImage = "capstan/haproxy:latest"

// onceData writes a file, appends to it, and appends a line to /opt/capstan-test/runs per run of
// the commands, so that a second run of any part shows.
const onceData = `#cloud-config
write_files:
- path: /opt/capstan-test/log.txt
  content: |
    first
- path: /opt/capstan-test/log.txt
  append: true
  content: |
    appended
runcmd:
- [sh, -c, "echo ran >> /opt/capstan-test/runs"]
- mkdir -p /run/cluster-api && echo success > /run/cluster-api/bootstrap-success.complete
`

type bootstrapNode struct {
	p *Provisioner
	c *docker.Container
	o BootstrapOptions
}

// newBootstrapNode creates a node container and a Provisioner whose bootstrap data Secret holds
// data (read through a fake client: only the Docker side is under test).
func newBootstrapNode(t *testing.T, rt *docker.Runtime, name, data string) *bootstrapNode {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, rt.EnsureNetworks(ctx))
	c, err := rt.Create(ctx, docker.ContainerSpec{Name: rt.Plane() + "-" + name, Image: bootstrapTestImage, Node: true,
		Owner: docker.Owner{Namespace: "ns", Cluster: "c"}, Role: docker.RoleWorker})
	require.NoError(t, err)
	scheme := runtime.NewScheme()
	require.NoError(t, corev1.AddToScheme(scheme))
	require.NoError(t, infrav1.AddToScheme(scheme))
	key := client.ObjectKey{Namespace: "ns", Name: name + "-bootstrap"}
	cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}, Data: map[string][]byte{"value": []byte(data)},
	}).Build()
	return &bootstrapNode{
		p: &Provisioner{Client: cl, APIReader: cl, Docker: rt},
		c: c,
		o: BootstrapOptions{
			Cluster:    &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}},
			DataSecret: key, TimeoutSource: "spec.bootstrapTimeout", Replace: "delete the Machine to replace it",
		},
	}
}

// bootstrapUntilFinal calls Bootstrap as the controller does until the phase is final.
func (n *bootstrapNode) bootstrapUntilFinal(t *testing.T) BootstrapStatus {
	t.Helper()
	var st BootstrapStatus
	require.Eventually(t, func() bool {
		var err error
		st, err = n.p.Bootstrap(context.Background(), n.c, n.o)
		return err == nil && st.RequeueAfter == 0
	}, 60*time.Second, 100*time.Millisecond, "the bootstrap did not end; last status %+v", st)
	return st
}

func (n *bootstrapNode) exec(t *testing.T, script string) string {
	t.Helper()
	res, err := n.p.Docker.Exec(context.Background(), n.c, nil, "/bin/sh", "-c", script)
	require.NoError(t, err)
	require.Zero(t, res.ExitCode, "%s: %s", script, res)
	return res.Stdout
}

// requireRanOnce checks that every part of onceData happened exactly once.
func (n *bootstrapNode) requireRanOnce(t *testing.T) {
	t.Helper()
	require.Equal(t, "ran\n", n.exec(t, "cat /opt/capstan-test/runs"), "the commands ran more than once (or never)")
	require.Equal(t, "first\nappended\n", n.exec(t, "cat /opt/capstan-test/log.txt"), "write_files ran more than once (or never)")
}

func TestBootstrap_LockTakenWithoutARunIsRunOnceByTheNextReconcile(t *testing.T) {
	rt := dockertest.Runtime(t, bootstrapTestImage)
	for name, lock := range map[string]string{
		// The lock step of this version: the directory with its start time, in one rename.
		"lock": "",
		// The lock step of the version the wedge was found with, exec'd alone: mkdir, then the time.
		"oldlock": `mkdir -p /var/lib/capstan/bootstrap && date +%s > /var/lib/capstan/bootstrap/started`,
	} {
		t.Run(name, func(t *testing.T) {
			n := newBootstrapNode(t, rt, name, onceData)
			if lock == "" {
				require.NoError(t, n.p.takeBootstrapLock(context.Background(), n.c))
			} else {
				n.exec(t, lock)
			}
			// Killed here: no run. The restarted provider picks the bootstrap up.
			st := n.bootstrapUntilFinal(t)
			require.Equal(t, BootstrapSucceeded, st.Phase, st.Message)
			n.requireRanOnce(t)
		})
	}
}

func TestBootstrap_StagedButUnclaimedAttemptChangesNothingAndIsRunOnce(t *testing.T) {
	rt := dockertest.Runtime(t, bootstrapTestImage)
	n := newBootstrapNode(t, rt, "staged", onceData)
	ctx := context.Background()
	// Killed after staging, before the claim: an attempt's files exist, nothing else.
	require.NoError(t, n.p.takeBootstrapLock(ctx, n.c))
	plan, err := planBootstrap(ctx, []byte(onceData), "", n.c.Name)
	require.NoError(t, err)
	attempt := bootstrapDir + "/attempts/killed"
	for i, f := range plan.files {
		require.NoError(t, n.p.Docker.WriteFile(ctx, n.c, docker.File{Path: stagedFile(attempt, i), Content: f.Content, Mode: 0o600}))
	}
	require.NoError(t, n.p.Docker.WriteFile(ctx, n.c, docker.File{Path: attempt + "/run.sh", Content: []byte(runnerScript(attempt, plan)), Mode: 0o700}))
	require.Equal(t, "no\n", n.exec(t, "test -e /opt/capstan-test/log.txt && echo yes || echo no"), "staging wrote outside its attempt")

	st := n.bootstrapUntilFinal(t)
	require.Equal(t, BootstrapSucceeded, st.Phase, st.Message)
	n.requireRanOnce(t)
}

func TestBootstrap_RacingReconcilesStartTheRunOnce(t *testing.T) {
	rt := dockertest.Runtime(t, bootstrapTestImage)
	for _, locked := range []bool{false, true} {
		t.Run("locked="+strconv.FormatBool(locked), func(t *testing.T) {
			n := newBootstrapNode(t, rt, "race"+strconv.FormatBool(locked)[:1], onceData)
			if locked {
				require.NoError(t, n.p.takeBootstrapLock(context.Background(), n.c))
			}
			var wg sync.WaitGroup
			phases := make([]BootstrapPhase, 4)
			for i := range phases {
				wg.Add(1)
				go func() {
					defer wg.Done()
					deadline := time.Now().Add(60 * time.Second)
					for time.Now().Before(deadline) {
						st, err := n.p.Bootstrap(context.Background(), n.c, n.o)
						if err == nil && st.RequeueAfter == 0 {
							phases[i] = st.Phase
							return
						}
						time.Sleep(50 * time.Millisecond)
					}
				}()
			}
			wg.Wait()
			for i, phase := range phases {
				require.Equal(t, BootstrapSucceeded, phase, "reconcile %d", i)
			}
			n.requireRanOnce(t)
		})
	}
}

func TestBootstrap_AnEndedRunIsNeverStartedAgain(t *testing.T) {
	rt := dockertest.Runtime(t, bootstrapTestImage)
	t.Run("succeeded, then the container's /run was emptied", func(t *testing.T) {
		n := newBootstrapNode(t, rt, "done", onceData)
		require.Equal(t, BootstrapSucceeded, n.bootstrapUntilFinal(t).Phase)
		// Killed before the status write, and the container restarted (a tmpfs /run): the
		// sentinel is gone, the records on /var say how the run ended.
		n.exec(t, "rm -f "+sentinelPath)
		st := n.bootstrapUntilFinal(t)
		require.Equal(t, BootstrapSucceeded, st.Phase, st.Message)
		n.requireRanOnce(t)
	})
	t.Run("failed", func(t *testing.T) {
		n := newBootstrapNode(t, rt, "failed", "#cloud-config\nruncmd:\n- [sh, -c, \"echo ran >> /opt/runs; exit 4\"]\n")
		st := n.bootstrapUntilFinal(t)
		require.Equal(t, BootstrapFailed, st.Phase)
		require.Contains(t, st.Message, "Bootstrap command 1 exited with 4")
		again := n.bootstrapUntilFinal(t)
		require.Equal(t, st, again)
		require.Equal(t, "ran\n", n.exec(t, "cat /opt/runs"))
	})
}

func TestBootstrap_LockWhoseRunNeverStartsEndsInTimeoutAndNothingRunsAfter(t *testing.T) {
	rt := dockertest.Runtime(t, bootstrapTestImage)
	t.Run("lock older than the timeout", func(t *testing.T) {
		n := newBootstrapNode(t, rt, "stale", onceData)
		n.o.Timeout = time.Minute
		// A lock taken ten minutes ago by a provider that was killed before the run.
		n.exec(t, `mkdir -p /var/lib/capstan/bootstrap && echo $(( $(date +%s) - 600 )) > /var/lib/capstan/bootstrap/started`)
		st := n.bootstrapUntilFinal(t)
		require.Equal(t, BootstrapTimedOut, st.Phase)
		require.Contains(t, st.Message, "its commands were never started within 1m0s (spec.bootstrapTimeout)")
		require.Contains(t, st.Message, "nothing ran in the node, and it is not bootstrapped again: delete the Machine to replace it")
		require.Equal(t, st, n.bootstrapUntilFinal(t))
		require.Equal(t, "no\n", n.exec(t, "test -e /opt/capstan-test/runs && echo yes || echo no"), "a run started after the timeout")
	})
	t.Run("preparation keeps failing", func(t *testing.T) {
		// The data runs kubeadm, so the node needs the endpoint route, and the Cluster's
		// load balancer has no address: every attempt to start fails, until the timeout.
		n := newBootstrapNode(t, rt, "noroute", "#cloud-config\nwrite_files:\n- path: /run/kubeadm/kubeadm.yaml\n  content: |\n    apiVersion: kubeadm.k8s.io/v1beta4\n    kind: InitConfiguration\nruncmd:\n- echo ran >> /opt/runs\n")
		n.o.Timeout = 3 * time.Second
		n.o.Cluster.Spec = clusterv1.ClusterSpec{
			ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: "127.0.0.1", Port: 6443},
			InfrastructureRef:    clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "DockerCluster", Name: "c"},
		}
		_, err := n.p.Bootstrap(context.Background(), n.c, n.o)
		require.ErrorIs(t, err, errNoLoadBalancerAddress)
		st := n.bootstrapUntilFinal(t)
		require.Equal(t, BootstrapTimedOut, st.Phase)
		require.Contains(t, st.Message, "never started within 3s")
		require.Contains(t, st.Message, "last error: ")
		require.Contains(t, st.Message, "the load balancer's address on the node network is unknown")
		require.True(t, strings.HasSuffix(st.Message, "delete the Machine to replace it"), st.Message)
		require.Equal(t, "no\n", n.exec(t, "test -e /opt/runs && echo yes || echo no"))
	})
}

func TestBootstrap_RunnerLostToAContainerRestartEndsInAFailureSayingSo(t *testing.T) {
	rt := dockertest.Runtime(t, bootstrapTestImage)
	ctx := context.Background()
	n := newBootstrapNode(t, rt, "restart", "#cloud-config\nruncmd:\n- echo started\n- sleep 600\n")
	st, err := n.p.Bootstrap(ctx, n.c, n.o)
	require.NoError(t, err)
	require.Equal(t, BootstrapRunning, st.Phase, st.Message)
	require.Eventually(t, func() bool {
		res, err := n.p.Docker.Exec(ctx, n.c, nil, "grep", "-q", `^+ \[2\]`, bootstrapDir+"/log")
		return err == nil && res.ExitCode == 0
	}, 30*time.Second, 100*time.Millisecond, "command 2 did not start")
	st, err = n.p.Bootstrap(ctx, n.c, n.o)
	require.NoError(t, err)
	require.Equal(t, BootstrapRunning, st.Phase, "a live runner is running: %s", st.Message)

	// The Docker Engine restarts the container (as after a dockerd restart, by its restart
	// policy): the runner is gone, the records on /var stay.
	raw, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	require.NoError(t, err)
	t.Cleanup(func() { _ = raw.Close() })
	stopAfter := 1
	require.NoError(t, raw.ContainerRestart(ctx, n.c.ID, container.StopOptions{Timeout: &stopAfter}))

	st = n.bootstrapUntilFinal(t)
	require.Equal(t, BootstrapFailed, st.Phase)
	require.Contains(t, st.Message, "The bootstrap runner stopped during command 2 without recording how it ended: the node container was restarted")
	require.Contains(t, st.Message, "delete the Machine to replace it")
	require.Contains(t, st.Message, "started")
	require.Equal(t, st, n.bootstrapUntilFinal(t))
}

// A node whose containerd runs without its CRI plugin (seen when the host's inotify instances
// ran out: kubeadm join then failed its preflight and the node was lost for good) is not
// bootstrapped: containerd is restarted, the status says why, no lock is taken; once the plugin
// is loaded the bootstrap runs, once. The test image has no containerd: ctr, systemctl and
// journalctl are stand-ins that report the plugin failed until containerd was restarted.
func TestBootstrap_ARuntimeWithoutItsCRIPluginIsRestartedBeforeAnythingRuns(t *testing.T) {
	rt := dockertest.Runtime(t, bootstrapTestImage)
	n := newBootstrapNode(t, rt, "nocri", onceData)
	n.exec(t, `mkdir -p /usr/local/bin && cd /usr/local/bin &&
printf '%s\n' '#!/bin/sh' 's=error; [ -e /tmp/cri-ok ] && s=ok' 'echo "TYPE ID PLATFORMS STATUS"' 'echo "io.containerd.grpc.v1 cri linux/amd64 $s"' > ctr &&
printf '%s\n' '#!/bin/sh' 'echo "$@" >> /tmp/systemctl.log' '[ "$1 $2" = "restart containerd" ] && [ -e /tmp/restarts-fail ] && exit 0' '[ "$1 $2" = "restart containerd" ] && touch /tmp/cri-ok' 'exit 0' > systemctl &&
printf '%s\n' '#!/bin/sh' 'echo "time=\"t\" level=warning msg=\"failed to load plugin io.containerd.grpc.v1.cri\" error=\"failed to create CRI service: failed to create fsnotify watcher: too many open files\""' > journalctl &&
chmod +x ctr systemctl journalctl && touch /tmp/restarts-fail`)

	st, err := n.p.Bootstrap(context.Background(), n.c, n.o)
	require.NoError(t, err)
	require.Equal(t, BootstrapWaitingForContainer, st.Phase)
	require.Contains(t, st.Message, "containerd in the node container runs without its CRI plugin, which kubeadm needs (failed to create CRI service: failed to create fsnotify watcher: too many open files)")
	require.Equal(t, runtimeRetry, st.RequeueAfter)
	require.Equal(t, "restart containerd\n", n.exec(t, "cat /tmp/systemctl.log"))
	require.Equal(t, "none\n", n.exec(t, "[ -e /var/lib/capstan/bootstrap ] && echo lock || echo none"), "no lock before the runtime is ready")

	n.exec(t, "rm /tmp/restarts-fail") // the next restart loads the plugin
	st = n.bootstrapUntilFinal(t)
	require.Equal(t, BootstrapSucceeded, st.Phase, st.Message)
	n.requireRanOnce(t)
	require.Equal(t, "restart containerd\nrestart containerd\n", n.exec(t, "cat /tmp/systemctl.log"), "restarted while the plugin failed, never after")
}
