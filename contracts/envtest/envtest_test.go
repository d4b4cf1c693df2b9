package envtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"
)

func TestStart_MissingBinariesNameTheMakeTarget(t *testing.T) {
	t.Setenv("KUBEBUILDER_ASSETS", t.TempDir())
	env, err := Start(Options{})
	require.Nil(t, env)
	require.ErrorContains(t, err, "envtest needs a real kube-apiserver and etcd")
	require.ErrorContains(t, err, "make k8s-binaries")
	require.ErrorContains(t, err, "kube-apiserver not found")
	require.ErrorContains(t, err, "etcd not found")
}

func TestCoreCRDs_HoldsTheCoreAddonsIPAMAndRuntimeKinds(t *testing.T) {
	crds, err := CoreCRDs()
	require.NoError(t, err)
	kinds := map[string][]string{}
	for _, c := range crds {
		kinds[c.Spec.Group] = append(kinds[c.Spec.Group], c.Spec.Names.Kind)
	}
	require.ElementsMatch(t, []string{"Cluster", "Machine", "MachineSet", "MachineDeployment", "MachineHealthCheck", "MachinePool", "MachineDrainRule", "ClusterClass"}, kinds["cluster.x-k8s.io"])
	require.ElementsMatch(t, []string{"ClusterResourceSet", "ClusterResourceSetBinding"}, kinds["addons.cluster.x-k8s.io"])
	require.ElementsMatch(t, []string{"IPAddressClaim", "IPAddress"}, kinds["ipam.cluster.x-k8s.io"])
	require.ElementsMatch(t, []string{"ExtensionConfig"}, kinds["runtime.cluster.x-k8s.io"])
	require.Len(t, kinds, 4)
}

func TestDecodeCRDs_RejectsANonCRDDocument(t *testing.T) {
	fsys := fstest.MapFS{
		"d/a.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")},
	}
	_, err := DecodeCRDs(fsys, "d")
	require.ErrorContains(t, err, "a.yaml holds a ConfigMap, not a CustomResourceDefinition")
}

func TestDecodeCRDs_ReadsEveryDocumentInFileOrder(t *testing.T) {
	crd := func(name string) string {
		return fmt.Sprintf("---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: %s\n", name)
	}
	fsys := fstest.MapFS{
		"d/b.yaml":   {Data: []byte(crd("b1.example.test") + crd("b2.example.test"))},
		"d/a.yaml":   {Data: []byte(crd("a.example.test"))},
		"d/skip.txt": {Data: []byte("not yaml")},
	}
	crds, err := DecodeCRDs(fsys, "d")
	require.NoError(t, err)
	var names []string
	for _, c := range crds {
		names = append(names, c.Name)
	}
	require.Equal(t, []string{"a.example.test", "b1.example.test", "b2.example.test"}, names)
}

func TestPoll_ReturnsOnceTrue(t *testing.T) {
	calls := 0
	require.NoError(t, Poll(5*time.Second, func() (bool, error) {
		calls++
		return calls == 3, nil
	}))
	require.Equal(t, 3, calls)
}

func TestPoll_ReportsTheLastErrorAtTheDeadline(t *testing.T) {
	notYet := errors.New("object not there yet")
	err := Poll(300*time.Millisecond, func() (bool, error) { return false, notYet })
	require.ErrorIs(t, err, notYet)
	require.ErrorContains(t, err, "not true after 300ms")
}

type recordingTB struct{ failed string }

func (r *recordingTB) Helper() {}
func (r *recordingTB) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

func TestWaitFor_FailsNamingWhatItWaitedFor(t *testing.T) {
	tb := &recordingTB{}
	WaitFor(tb, 200*time.Millisecond, "Machine m1 to be Running", func() (bool, error) { return false, nil })
	require.Contains(t, tb.failed, "waiting for Machine m1 to be Running: not true after 200ms")
}

func TestStartTime_DistinguishesLiveAndMissingProcesses(t *testing.T) {
	require.NotEmpty(t, startTime(os.Getpid()))
	require.Empty(t, startTime(1<<30))
}

// A record whose owner is gone gets its processes killed and is removed; a record
// of a live owner is left alone.
func TestReapOrphans_KillsOnlyProcessesOfDeadOwners(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	marker := t.TempDir()
	// A stand-in "etcd": a copy of sleep named etcd, inside the marker directory so
	// the marker is on its command line.
	sleep, err := exec.LookPath("sleep")
	require.NoError(t, err)
	fake := filepath.Join(marker, "etcd")
	data, err := os.ReadFile(sleep)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(fake, data, 0o755))
	orphan := exec.Command(fake, "300")
	require.NoError(t, orphan.Start())
	t.Cleanup(func() { _ = orphan.Process.Kill() })
	exited := make(chan struct{})
	go func() { _ = orphan.Wait(); close(exited) }()

	require.NoError(t, os.MkdirAll(registryDir(), 0o755))
	write := func(name string, rec record) string {
		raw, _ := json.Marshal(rec)
		p := filepath.Join(registryDir(), name)
		require.NoError(t, os.WriteFile(p, raw, 0o644))
		return p
	}
	live := write("live.json", record{Owner: os.Getpid(), OwnerStart: startTime(os.Getpid()), Markers: []string{marker}})
	n, err := reapOrphans()
	require.NoError(t, err)
	require.Zero(t, n, "the owner is alive")
	require.FileExists(t, live)

	require.NoError(t, os.Remove(live))
	dead := write("dead.json", record{Owner: 1 << 30, OwnerStart: "1", Markers: []string{marker}})
	n, err = reapOrphans()
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.NoFileExists(t, dead)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the orphan was not killed")
	}
}
