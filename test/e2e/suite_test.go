//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"
	dockerclient "github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/test/framework"
)

// Labels the docker provider puts on every container and volume it creates.
const (
	clusterNamespaceLabel = "io.capstan.cluster-namespace"
	clusterLabel          = "io.capstan.cluster"
	roleLabel             = "io.capstan.role"
)

// suite is the shared workload cluster and the clients the specs use.
type suite struct {
	t        *testing.T
	ctx      context.Context
	mgmt     client.Client
	docker   *dockerclient.Client
	repo     string
	ns, name string

	mgmtConfig *rest.Config

	kubeconfig []byte
	workload   client.Client
	clientset  *kubernetes.Clientset
	timings    *timings
}

// timings are the wall times of the specs, for docs/benchmarks.md; specs running in parallel
// (each with its own copy of the suite, see forSubtest) add to the same list.
type timings struct {
	mu    sync.Mutex
	lines []string
}

func (l *timings) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

func (l *timings) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n  ")
}

// forSubtest is a copy of the suite for a subtest that runs in parallel with another: its own t,
// the same clients, cluster and timings. The specs run that way touch different objects.
func (s *suite) forSubtest(t *testing.T) *suite {
	c := *s
	c.t = t
	return &c
}

func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	require.NoError(t, err)
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		require.NotEqual(t, "/", dir, "no go.work above the test directory")
	}
}

func newSuite(t *testing.T) *suite {
	repo := repoRoot(t)
	kubeconfig := os.Getenv("CAPSTAN_E2E_KUBECONFIG")
	if kubeconfig == "" {
		kubeconfig = filepath.Join(repo, ".capstan", "mgmt", "kubeconfig")
	}
	if _, err := os.Stat(kubeconfig); err != nil {
		t.Skipf("no management cluster at %s: run 'make e2e'", kubeconfig)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	mgmt, err := client.New(cfg, client.Options{Scheme: framework.Scheme()})
	require.NoError(t, err)
	docker, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	require.NoError(t, err)
	if _, err := docker.Ping(context.Background()); err != nil {
		t.Skipf("no Docker engine answers (%v): run 'make docker-up'", err)
	}
	t.Cleanup(func() { _ = docker.Close() })
	name := fmt.Sprintf("e2e-%05d", rand.IntN(100000))
	s := &suite{t: t, ctx: context.Background(), mgmt: mgmt, mgmtConfig: cfg, docker: docker, repo: repo, ns: name, name: name, timings: &timings{}}
	require.NoError(t, mgmt.Create(s.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}))
	return s
}

// clusterManifest is examples/quickstart.yaml for a cluster of the suite's name in its
// namespace, its nodes given the host's Docker socket (the self-hosting spec runs the docker
// provider inside the cluster, as upstream's self-hosted e2e does with kind's extraMounts).
func (s *suite) clusterManifest() []*framework.Object {
	data, err := os.ReadFile(filepath.Join(s.repo, "examples", "quickstart.yaml"))
	require.NoError(s.t, err)
	objs, err := framework.ParseManifest([]byte(strings.ReplaceAll(string(data), "quickstart", s.name)))
	require.NoError(s.t, err)
	for _, o := range objs {
		o.SetNamespace(s.ns)
		if o.GetKind() == "DockerMachineTemplate" {
			require.NoError(s.t, unstructured.SetNestedSlice(o.Object, []any{dockerSocketMount()}, "spec", "template", "spec", "extraMounts"))
		}
	}
	return objs
}

// dockerSocketMount is the extraMounts entry that gives a node the host's Docker socket.
func dockerSocketMount() any {
	return map[string]any{"containerPath": "/var/run/docker.sock", "hostPath": "/var/run/docker.sock"}
}

// timed runs a spec and records its wall time for docs/benchmarks.md.
func (s *suite) timed(name string, f func()) {
	start := time.Now()
	f()
	line := fmt.Sprintf("%s: %s", name, time.Since(start).Round(time.Second))
	s.timings.add(line)
	s.t.Logf("e2e timing: %s", line)
}

// waitFor polls cond every 2s until it holds, failing with what was last seen at the deadline.
func (s *suite) waitFor(timeout time.Duration, what string, cond func() (bool, string, error)) {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		ok, seen, err := cond()
		if err != nil {
			seen = err.Error()
		}
		if seen != last && seen != "" {
			s.t.Logf("%s: %s", what, seen)
			last = seen
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out after %s waiting for %s; last seen: %s", timeout, what, last)
		}
		time.Sleep(2 * time.Second)
	}
}

func (s *suite) containers(extra ...string) ([]container.Summary, error) {
	f := filters.NewArgs(filters.Arg("label", clusterNamespaceLabel+"="+s.ns), filters.Arg("label", clusterLabel+"="+s.name))
	for _, e := range extra {
		f.Add("label", e)
	}
	return s.docker.ContainerList(s.ctx, container.ListOptions{All: true, Filters: f})
}

// nodeNames names the cluster's running node containers, the load balancer left out: those a
// kubelet runs in, which can be given images.
func (s *suite) nodeNames() []string {
	s.t.Helper()
	cs, err := s.containers()
	require.NoError(s.t, err)
	var names []string
	for _, c := range cs {
		if c.Labels[roleLabel] != "load-balancer" && c.State == "running" {
			names = append(names, strings.TrimPrefix(c.Names[0], "/"))
		}
	}
	return names
}

func (s *suite) volumes() ([]*volume.Volume, error) {
	f := filters.NewArgs(filters.Arg("label", clusterNamespaceLabel+"="+s.ns), filters.Arg("label", clusterLabel+"="+s.name))
	resp, err := s.docker.VolumeList(s.ctx, volume.ListOptions{Filters: f})
	return resp.Volumes, err
}

// workloadNodes counts the workload cluster's Nodes and those of them that are Ready.
// notReady names, in the second result, each Node that is not Ready and what its Ready condition
// says, for a spec's progress lines.
func (s *suite) workloadNodes() (total, ready int, notReady []string, err error) {
	nodes := &corev1.NodeList{}
	if err := s.workload.List(s.ctx, nodes); err != nil {
		return 0, 0, nil, err
	}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		if framework.NodeIsReady(n) {
			ready++
			continue
		}
		why := "no Ready condition"
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				why = fmt.Sprintf("Ready %s %s: %s", c.Status, c.Reason, c.Message)
			}
		}
		notReady = append(notReady, n.Name+" ("+why+")")
	}
	return len(nodes.Items), ready, notReady, nil
}

func (s *suite) machines(labels client.MatchingLabels) ([]clusterv1.Machine, error) {
	list := &clusterv1.MachineList{}
	sel := client.MatchingLabels{clusterv1.ClusterNameLabel: s.name}
	for k, v := range labels {
		sel[k] = v
	}
	err := s.mgmt.List(s.ctx, list, client.InNamespace(s.ns), sel)
	return list.Items, err
}

// deleteCluster deletes the Cluster through the API and asserts that, within the deadline,
// nothing of it is left: no Cluster API object, no container, no volume, no Secret.
func (s *suite) deleteCluster(timeout time.Duration) {
	s.t.Helper()
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: s.name}}
	if err := s.mgmt.Delete(s.ctx, cluster); err != nil && !apierrors.IsNotFound(err) {
		s.t.Fatalf("deleting Cluster: %v", err)
	}
	s.waitFor(timeout, "the Cluster, its Machines, containers, volumes and Secrets to be gone", func() (bool, string, error) {
		left := []string{}
		c := &clusterv1.Cluster{}
		if err := s.mgmt.Get(s.ctx, client.ObjectKeyFromObject(cluster), c); err == nil {
			msg := ""
			for _, cond := range c.Status.Conditions {
				if cond.Type == clusterv1.DeletingCondition {
					msg = cond.Message
				}
			}
			left = append(left, "Cluster ("+msg+")")
		} else if !apierrors.IsNotFound(err) {
			return false, "", err
		}
		ms, err := s.machines(nil)
		if err != nil {
			return false, "", err
		}
		for _, m := range ms {
			left = append(left, "Machine "+m.Name)
		}
		cs, err := s.containers()
		if err != nil {
			return false, "", err
		}
		for _, c := range cs {
			left = append(left, "container "+strings.TrimPrefix(c.Names[0], "/"))
		}
		vs, err := s.volumes()
		if err != nil {
			return false, "", err
		}
		for _, v := range vs {
			left = append(left, "volume "+v.Name)
		}
		secrets := &corev1.SecretList{}
		if err := s.mgmt.List(s.ctx, secrets, client.InNamespace(s.ns)); err != nil {
			return false, "", err
		}
		for _, sec := range secrets.Items {
			left = append(left, "Secret "+sec.Name)
		}
		return len(left) == 0, strings.Join(left, ", "), nil
	})
}
