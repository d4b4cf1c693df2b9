//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/test/framework"
)

// provider is one of the three as capstanctl init deploys it.
type provider struct {
	name, namespace, lease, image string
}

var providers = []provider{
	{"core", "capstan-system", "capstan-core-leader-election", "capstan/core-manager:dev"},
	{"kubeadm", "capstan-kubeadm-bootstrap-system", "capstan-kubeadm-bootstrap-leader-election", "capstan/bootstrap-kubeadm-manager:dev"},
	{"docker", "capstan-docker-system", "capstan-docker-infrastructure-leader-election", "capstan/infrastructure-docker-manager:dev"},
}

// selfHosting turns the workload cluster into a management cluster and moves the cluster into
// itself: the three manager images are loaded into its nodes, `capstanctl init` deploys the
// providers there (each Deployment Available, each holding its Lease), removing one provider's
// namespace leaves the other two running, then `capstanctl move` carries the cluster's objects
// over and the managers inside it scale its MachineDeployment. Finally the cluster is moved
// back, so the local managers delete it in the last spec.
func (s *suite) selfHosting() {
	kc, hosted := s.hostManagers()

	// Removing one provider leaves the others running: same pods, no restart, Leases renewed.
	before := map[string]string{}
	for _, p := range []provider{providers[0], providers[2]} {
		before[p.name] = s.managerPods(hosted, p)
	}
	removed := providers[1]
	s.t.Logf("deleting namespace %s", removed.namespace)
	require.NoError(s.t, hosted.Delete(s.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: removed.namespace}}))
	deletedAt := time.Now()
	s.waitFor(3*time.Minute, "namespace "+removed.namespace+" to be gone", func() (bool, string, error) {
		err := hosted.Get(s.ctx, client.ObjectKey{Name: removed.namespace}, &corev1.Namespace{})
		if apierrors.IsNotFound(err) {
			return true, "gone", nil
		}
		return false, "still there", err
	})
	for _, p := range []provider{providers[0], providers[2]} {
		s.waitForLease(hosted, p, deletedAt)
		require.Equal(s.t, before[p.name], s.managerPods(hosted, p), "%s kept its pod, unrestarted, while %s was removed", p.name, removed.name)
	}
	s.capstanctl("init", "--kubeconfig", kc, "--providers", removed.name, "--host-network", "--wait", "--timeout", "5m")
	s.waitForLease(hosted, removed, time.Now().Add(-time.Minute))

	// Move the cluster into itself and scale it there.
	mgmtKC := s.mgmtKubeconfig()
	s.capstanctl("move", "--kubeconfig", mgmtKC, "--to-kubeconfig", kc, "-n", s.ns)
	home := false
	defer func() {
		// A failure while the cluster lives in itself would leave the local managers unable
		// to delete it: bring it home first (best effort, the spec has failed already).
		if !home {
			if err := s.runCapstanctl("move", "--kubeconfig", kc, "--to-kubeconfig", mgmtKC, "-n", s.ns); err != nil {
				s.t.Logf("moving the cluster back after the failure: %v", err)
			}
		}
	}()
	err := s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, &clusterv1.Cluster{})
	require.True(s.t, apierrors.IsNotFound(err), "the Cluster left the local management plane: %v", err)
	moved := &clusterv1.Cluster{}
	require.NoError(s.t, hosted.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, moved))
	require.False(s.t, ptrTrue(moved.Spec.Paused), "the moved Cluster is unpaused")

	// The managers' images were loaded into today's nodes only: the scale-down at the end must
	// remove the worker added below, not one the managers run on (ThirdPartyProvider uses them).
	workers := client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: s.mdKey().Name}
	var original []clusterv1.Machine
	local := s.mgmt
	s.mgmt = hosted // the specs' helpers now read and patch the cluster where it lives
	func() {
		defer func() { s.mgmt = local }()
		original, err = s.machines(workers)
		require.NoError(s.t, err)
		require.NotEmpty(s.t, original)
		cps := s.controlPlaneCount()
		s.patchReplicas(&clusterv1.MachineDeployment{}, s.mdKey(), 2)
		s.waitForWorkers(2, cps, 10*time.Minute)
		s.capstanctl("move", "--kubeconfig", kc, "--to-kubeconfig", mgmtKC, "-n", s.ns)
		home = true
	}()

	// Home again: the local managers manage it (scale back down).
	back := &clusterv1.Cluster{}
	require.NoError(s.t, s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, back))
	require.False(s.t, ptrTrue(back.Spec.Paused))
	s.scaleWorkersBack(workers, original)
}

// scaleWorkersBack scales the MachineDeployment back to the workers it had (original), removing
// those added since: the managers' images were loaded into the original nodes only.
func (s *suite) scaleWorkersBack(workers client.MatchingLabels, original []clusterv1.Machine) {
	now, err := s.machines(workers)
	require.NoError(s.t, err)
	for i := range now {
		m := &now[i]
		if !slices.ContainsFunc(original, func(o clusterv1.Machine) bool { return o.Name == m.Name }) {
			patch := client.RawPatch("application/merge-patch+json", fmt.Appendf(nil, `{"metadata":{"annotations":{%q:"yes"}}}`, clusterv1.DeleteMachineAnnotation))
			require.NoError(s.t, s.mgmt.Patch(s.ctx, m, patch))
		}
	}
	s.patchReplicas(&clusterv1.MachineDeployment{}, s.mdKey(), int32(len(original)))
	s.waitForWorkers(len(original), s.controlPlaneCount(), 8*time.Minute)
	final, err := s.machines(workers)
	require.NoError(s.t, err)
	for _, m := range final {
		require.True(s.t, slices.ContainsFunc(original, func(o clusterv1.Machine) bool { return o.Name == m.Name }),
			"the scale-down removed the worker added by the hosted managers, not %s", m.Name)
	}
}

// hostManagers loads the three manager images into the workload cluster's nodes and deploys the
// providers there with `capstanctl init --host-network`, waiting until each holds its Lease; it
// returns the workload cluster's kubeconfig file and a client of it.
func (s *suite) hostManagers() (string, client.WithWatch) {
	kc := filepath.Join(s.t.TempDir(), "workload.kubeconfig")
	require.NoError(s.t, os.WriteFile(kc, s.kubeconfig, 0o600))
	hostedCfg, err := clientcmd.BuildConfigFromFlags("", kc)
	require.NoError(s.t, err)
	hosted, err := client.NewWithWatch(hostedCfg, client.Options{Scheme: framework.Scheme()})
	require.NoError(s.t, err)

	for _, name := range s.nodeNames() {
		for _, p := range providers {
			ctx, cancel := context.WithTimeout(s.ctx, 2*time.Minute)
			require.NoError(s.t, framework.LoadImage(ctx, s.docker, name, p.image), "make images builds the manager images")
			cancel()
		}
		s.t.Logf("loaded the three manager images into node %s", name)
	}

	s.capstanctl("init", "--kubeconfig", kc, "--host-network", "--wait", "--timeout", "5m")
	for _, p := range providers {
		s.waitForLease(hosted, p, time.Now().Add(-time.Minute))
	}
	return kc, hosted
}

func ptrTrue(b *bool) bool { return b != nil && *b }

// controlPlaneCount is the number of control plane Machines of the cluster.
func (s *suite) controlPlaneCount() int {
	cps, err := s.machines(client.MatchingLabels{clusterv1.MachineControlPlaneLabel: ""})
	require.NoError(s.t, err)
	return len(cps)
}

// capstanctl runs bin/capstanctl and fails the spec when it fails.
func (s *suite) capstanctl(args ...string) {
	s.t.Helper()
	require.NoError(s.t, s.runCapstanctl(args...))
}

// runCapstanctl runs bin/capstanctl (make managers builds it), logging its output; only
// --kubeconfig flags choose clusters.
func (s *suite) runCapstanctl(args ...string) error {
	_, err := s.capstanctlOutput(10*time.Minute, args...)
	return err
}

// capstanctlOutput runs bin/capstanctl as runCapstanctl does, within timeout, and returns what it
// printed on stdout (its stderr is only logged).
func (s *suite) capstanctlOutput(timeout time.Duration, args ...string) ([]byte, error) {
	bin := filepath.Join(s.repo, "bin", "capstanctl")
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%s: %w: run 'make managers'", bin, err)
	}
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG=/nonexistent")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	s.t.Logf("capstanctl %s:\n%s%s", strings.Join(args, " "), out, stderr.String())
	if err != nil {
		return out, fmt.Errorf("capstanctl %s: %w", strings.Join(args, " "), err)
	}
	return out, nil
}

func (s *suite) mgmtKubeconfig() string {
	if kc := os.Getenv("CAPSTAN_E2E_KUBECONFIG"); kc != "" {
		return kc
	}
	return filepath.Join(s.repo, ".capstan", "mgmt", "kubeconfig")
}

// waitForLease waits until p's Lease in c has a holder that renewed it after since.
func (s *suite) waitForLease(c client.Client, p provider, since time.Time) {
	s.waitFor(3*time.Minute, fmt.Sprintf("%s to hold Lease %s/%s", p.name, p.namespace, p.lease), func() (bool, string, error) {
		l := &coordinationv1.Lease{}
		if err := c.Get(s.ctx, client.ObjectKey{Namespace: p.namespace, Name: p.lease}, l); err != nil {
			return false, "", client.IgnoreNotFound(err)
		}
		if l.Spec.HolderIdentity == nil || l.Spec.RenewTime == nil {
			return false, "no holder", nil
		}
		return l.Spec.RenewTime.After(since), fmt.Sprintf("held by %s, renewed %s", *l.Spec.HolderIdentity, l.Spec.RenewTime.Format(time.RFC3339)), nil
	})
}

// managerPods describes p's running manager pods (name, uid, restarts) and checks its
// Deployment is Available.
func (s *suite) managerPods(c client.Client, p provider) string {
	s.t.Helper()
	ds := &appsv1.DeploymentList{}
	require.NoError(s.t, c.List(s.ctx, ds, client.InNamespace(p.namespace)))
	require.Len(s.t, ds.Items, 1, "one manager Deployment in %s", p.namespace)
	available := false
	for _, cond := range ds.Items[0].Status.Conditions {
		available = available || (cond.Type == appsv1.DeploymentAvailable && cond.Status == corev1.ConditionTrue)
	}
	require.True(s.t, available, "Deployment %s/%s is Available", p.namespace, ds.Items[0].Name)
	pods := &corev1.PodList{}
	require.NoError(s.t, c.List(s.ctx, pods, client.InNamespace(p.namespace)))
	var out []string
	for _, pod := range pods.Items {
		restarts := int32(0)
		for _, st := range pod.Status.ContainerStatuses {
			restarts += st.RestartCount
		}
		out = append(out, fmt.Sprintf("%s/%s restarts=%d", pod.Name, pod.UID, restarts))
	}
	return strings.Join(out, ",")
}
