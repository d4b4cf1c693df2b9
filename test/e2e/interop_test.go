//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/test/framework"
)

// The interop specs (issue 33) prove the contract both ways with upstream Cluster API's own
// managers, built from its Go module by hack/upstream/build.sh (make e2e-interop): each swaps one
// side of a running Capstan installation for upstream's and brings the quickstart cluster (1
// control plane + 1 worker) to Ready Nodes, scales the workers to 2 and deletes it with nothing
// left. Upstream's managers run as local processes with the management cluster's admin
// credentials (upstream's RBAC and webhooks are not installed: what the contract is about is the
// objects), on Capstan's CRDs, which follow upstream's v1beta2 schema.

// TestInteropUpstreamKubeadm: Capstan's core and Docker provider with upstream's kubeadm bootstrap
// and KubeadmControlPlane managers in place of Capstan's bootstrap-kubeadm manager.
func TestInteropUpstreamKubeadm(t *testing.T) {
	s := newSuite(t)
	bins := upstreamBinaries(t)
	s.swapCapstanManager("kubeadm")
	// Upstream writes Ignition only behind its alpha gate.
	s.startUpstreamManager("bootstrap", bins.bootstrap, "--feature-gates=KubeadmBootstrapFormatIgnition=true")
	s.startUpstreamManager("controlplane", bins.controlPlane)

	s.interopLifecycle(func() {
		// The effect that matters: the nodes ran upstream's bootstrap data: the control plane
		// its cloud-config, which starts with cloud-init's Jinja header that Capstan's own
		// provider never writes, the worker its Ignition.
		formats := s.bootstrapDataFormats()
		require.Equal(s.t, map[string]int{"cloud-config ## template: jinja": 1, "ignition": 1}, formats,
			"every Machine bootstrapped from upstream's data")
	})
}

// TestInteropUpstreamCore: upstream's core manager in place of Capstan's core, with Capstan's
// kubeadm bootstrap and control plane and its Docker provider.
func TestInteropUpstreamCore(t *testing.T) {
	s := newSuite(t)
	bins := upstreamBinaries(t)
	s.swapCapstanManager("core")
	s.startUpstreamManager("core", bins.core)

	s.interopLifecycle(func() {
		require.Equal(s.t, map[string]int{"cloud-config": 1, "ignition": 1}, s.bootstrapDataFormats())
		// A manager's name in managedFields is its binary's (capi-core, Capstan's is core).
		writers := s.machineStatusWriters()
		require.Len(s.t, writers, 2, "both Machines' status written")
		for name, managers := range writers {
			require.Contains(s.t, managers, filepath.Base(bins.core), "Machine %s: status written by upstream's core", name)
			require.NotContains(s.t, managers, "core", "Machine %s: status written by Capstan's core, which is stopped", name)
		}
	})
}

// interopLifecycle applies the quickstart cluster, its workers bootstrapped by Ignition, waits
// for its two Nodes, runs check, scales the workers to two and deletes the cluster, checking that
// nothing is left.
func (s *suite) interopLifecycle(check func()) {
	deleted := false
	s.t.Cleanup(func() {
		if !deleted {
			s.deleteCluster(10 * time.Minute)
		}
		s.t.Logf("interop timings:\n  %s", s.timings)
	})
	s.timed("apply to every node Ready", func() { s.applyAndWaitForNodes(s.ignitionWorkers(s.clusterManifest()), 12*time.Minute) })
	nodes := &corev1.NodeList{}
	require.NoError(s.t, s.workload.List(s.ctx, nodes))
	require.Len(s.t, nodes.Items, 2, "one control plane node and one worker")
	check()
	s.timed("workers 1→2", func() {
		s.patchReplicas(&clusterv1.MachineDeployment{}, s.mdKey(), 2)
		s.waitForWorkers(2, 1, 8*time.Minute)
	})
	s.timed("delete with nothing left", func() { s.deleteCluster(8 * time.Minute) })
	deleted = true
}

// ignitionWorkers sets format ignition on the workers' KubeadmConfigTemplate.
func (s *suite) ignitionWorkers(objs []*framework.Object) []*framework.Object {
	for _, o := range objs {
		if o.GetKind() == "KubeadmConfigTemplate" {
			require.NoError(s.t, unstructured.SetNestedField(o.Object, "ignition", "spec", "template", "spec", "format"))
		}
	}
	return objs
}

// bootstrapDataFormats counts the formats of the suite's Machines' bootstrap data Secrets, a
// cloud-config's with its Jinja header when it has one.
func (s *suite) bootstrapDataFormats() map[string]int {
	ms, err := s.machines(nil)
	require.NoError(s.t, err)
	headers := map[string]int{}
	for _, m := range ms {
		name := m.Spec.Bootstrap.DataSecretName
		require.NotEmpty(s.t, name, "Machine %s has bootstrap data", m.Name)
		sec := &corev1.Secret{}
		require.NoError(s.t, s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: *name}, sec))
		format := string(sec.Data["format"])
		if first, _, _ := strings.Cut(string(sec.Data["value"]), "\n"); strings.HasPrefix(first, "## template:") {
			format += " " + first
		}
		headers[format]++
	}
	return headers
}

// machineStatusWriters lists, per Machine, the field managers that wrote its status.
func (s *suite) machineStatusWriters() map[string][]string {
	ms, err := s.machines(nil)
	require.NoError(s.t, err)
	writers := map[string][]string{}
	for _, m := range ms {
		for _, f := range m.ManagedFields {
			if f.Subresource == "status" {
				writers[m.Name] = append(writers[m.Name], f.Manager)
			}
		}
		s.t.Logf("Machine %s: status written by %v", m.Name, writers[m.Name])
	}
	return writers
}

// upstreamManagers are the binaries hack/upstream/build.sh prints, which make e2e-interop
// exports.
type upstreamManagers struct{ core, bootstrap, controlPlane string }

func upstreamBinaries(t *testing.T) upstreamManagers {
	b := upstreamManagers{
		core:         os.Getenv("CAPSTAN_UPSTREAM_CORE"),
		bootstrap:    os.Getenv("CAPSTAN_UPSTREAM_BOOTSTRAP"),
		controlPlane: os.Getenv("CAPSTAN_UPSTREAM_CONTROLPLANE"),
	}
	for env, path := range map[string]string{"CAPSTAN_UPSTREAM_CORE": b.core, "CAPSTAN_UPSTREAM_BOOTSTRAP": b.bootstrap,
		"CAPSTAN_UPSTREAM_CONTROLPLANE": b.controlPlane} {
		if _, err := os.Stat(path); path == "" || err != nil {
			t.Fatalf("%s=%q: not a binary (%v); run 'make e2e-interop', which builds upstream's managers", env, path, err)
		}
	}
	t.Logf("upstream Cluster API %s", os.Getenv("CAPSTAN_UPSTREAM_VERSION"))
	return b
}

// swapCapstanManager stops Capstan's provider manager (a `capstanctl init --dev` process) for
// the test and starts it again, with the others, afterwards.
func (s *suite) swapCapstanManager(provider string) {
	state := s.repo + "/.capstan/managers"
	s.capstanctl("init", "--dev", "--stop", "--providers", provider, "--state-dir", state)
	s.t.Cleanup(func() {
		s.capstanctl("init", "--dev", "--kubeconfig", s.mgmtKubeconfig(), "--bin-dir", s.repo+"/bin",
			"--state-dir", state, "--log-dir", s.repo+"/.capstan/logs")
	})
}

// interopLog is where an upstream manager logs.
func (s *suite) interopLog(name string) string {
	return fmt.Sprintf("%s/.capstan/logs/upstream-%s.log", s.repo, name)
}
