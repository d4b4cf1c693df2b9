//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/test/framework"
)

// testExtension is test/extension running on the host for one spec (the core manager runs on the
// host too, as `make e2e` starts it), registered by an ExtensionConfig whose namespaceSelector
// matches only the spec's namespace, so the other specs' Clusters never see it.
type testExtension struct {
	*framework.Extension
	s *suite
}

// startTestExtension builds and runs test/extension, which writes its CA into the ExtensionConfig
// created for it, and waits until the core has discovered it.
func (s *suite) startTestExtension() *testExtension {
	s.t.Helper()
	bin := filepath.Join(s.t.TempDir(), "extension")
	build := exec.Command("go", "build", "-o", bin, "./test/extension")
	build.Dir = s.repo
	out, err := build.CombinedOutput()
	require.NoError(s.t, err, "building test/extension: %s", out)

	logPath := filepath.Join(s.t.TempDir(), "extension.log")
	logFile, err := os.Create(logPath)
	require.NoError(s.t, err)
	c := s.runtimeClient()
	ctx, cancel := context.WithTimeout(s.ctx, time.Minute)
	defer cancel()
	ext, err := framework.StartExtension(ctx, c, bin, envtest.FreeLoopbackAddr(s.t), s.kubeconfigPath(), s.ns, logFile)
	require.NoError(s.t, err)
	s.t.Cleanup(func() {
		ext.Stop()
		_ = logFile.Close()
		if s.t.Failed() {
			log, _ := os.ReadFile(logPath)
			s.t.Logf("test extension log:\n%s", log)
		}
	})

	cfg := &runtimev1.ExtensionConfig{}
	s.waitFor(time.Minute, "ExtensionConfig "+ext.Name+" Discovered", func() (bool, string, error) {
		if err := c.Get(s.ctx, client.ObjectKey{Name: ext.Name}, cfg); err != nil {
			return false, "", err
		}
		cond := meta.FindStatusCondition(cfg.Status.Conditions, runtimev1.ExtensionConfigDiscoveredCondition)
		if cond == nil {
			return false, "no Discovered condition", nil
		}
		return cond.Status == metav1.ConditionTrue, cond.Reason + ": " + cond.Message, nil
	})
	return &testExtension{Extension: ext, s: s}
}

// hold makes hook answer retryAfterSeconds 2 with message, until allow.
func (e *testExtension) hold(hook, message string) {
	e.s.t.Helper()
	require.NoError(e.s.t, e.Hold(e.s.ctx, hook, message))
}

// allow makes hook answer Success with no retry again.
func (e *testExtension) allow(hook string) {
	e.s.t.Helper()
	require.NoError(e.s.t, e.Allow(e.s.ctx, hook))
}

// lastRequest is the last request hook received, "" before the first.
func (e *testExtension) lastRequest(hook string) string {
	e.s.t.Helper()
	req, err := e.LastRequest(e.s.ctx, hook)
	require.NoError(e.s.t, err)
	return req
}

// runtimeClient is a client of the management cluster that also knows ExtensionConfigs.
func (s *suite) runtimeClient() client.WithWatch {
	s.t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(s.t, runtimev1.AddToScheme(scheme))
	require.NoError(s.t, clusterv1.AddToScheme(scheme))
	c, err := client.NewWithWatch(s.mgmtConfig, client.Options{Scheme: scheme})
	require.NoError(s.t, err)
	return c
}

// kubeconfigPath is the management cluster's kubeconfig file, as newSuite found it.
func (s *suite) kubeconfigPath() string {
	if p := os.Getenv("CAPSTAN_E2E_KUBECONFIG"); p != "" {
		return p
	}
	return filepath.Join(s.repo, ".capstan", "mgmt", "kubeconfig")
}

// watchKinds watches the kinds in the spec's namespace until the test ends.
func (s *suite) watchKinds(gvks ...schema.GroupVersionKind) *framework.KindWatch {
	s.t.Helper()
	w, err := framework.WatchKinds(s.ctx, s.runtimeClient(), s.ns, gvks...)
	require.NoError(s.t, err)
	s.t.Cleanup(w.Stop)
	return w
}

// waitForTopologyHold waits until TopologyReconciled is False with reason and a message naming hook
// and message, as the topology controller reports a hold.
func (s *suite) waitForTopologyHold(reason, hook, message string) {
	s.t.Helper()
	s.waitFor(2*time.Minute, "TopologyReconciled "+reason+" held by "+hook, func() (bool, string, error) {
		c := &clusterv1.Cluster{}
		if err := s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, c); err != nil {
			return false, "", client.IgnoreNotFound(err)
		}
		cond := meta.FindStatusCondition(c.Status.Conditions, clusterv1.ClusterTopologyReconciledCondition)
		if cond == nil {
			return false, "no TopologyReconciled condition", nil
		}
		return cond.Status == metav1.ConditionFalse && cond.Reason == reason &&
			strings.Contains(cond.Message, hook+": "+message), cond.Reason + ": " + cond.Message, nil
	})
}

// addExternalPatch gives the test's copy of the quick-start class an external patch served by ext
// (generate-patches, validate-topology, discover-variables) in place of the class's own
// imageRepository variable and inline patch: the variable's definition now comes from the
// extension (discovered), as a vendor's class would have it, and the Cluster sets it to
// registry.k8s.io (the node images the cluster already has). The extension's patch puts that
// value into the control plane's imageRepository and "echo imageRepository=<value>" into the
// workers' preKubeadmCommands.
func (e *testExtension) addExternalPatch(objs []*framework.Object) {
	t := e.s.t
	patch := map[string]any{"name": "test-extension", "external": map[string]any{
		"generatePatchesExtension":   "generate-patches." + e.Name,
		"validateTopologyExtension":  "validate-topology." + e.Name,
		"discoverVariablesExtension": "discover-variables." + e.Name,
	}}
	named := func(name string) func(any) bool {
		return func(item any) bool { m, ok := item.(map[string]any); return ok && m["name"] == name }
	}
	edit := func(o *framework.Object, change func([]any) []any, path ...string) {
		list, _, err := unstructured.NestedSlice(o.Object, path...)
		require.NoError(t, err)
		require.NoError(t, unstructured.SetNestedSlice(o.Object, change(list), path...))
	}
	found := 0
	for _, o := range objs {
		switch o.GetKind() {
		case "ClusterClass":
			edit(o, func(l []any) []any { return slices.DeleteFunc(l, named("imageRepository")) }, "spec", "variables")
			edit(o, func(l []any) []any { return append(slices.DeleteFunc(l, named("imageRepository")), patch) }, "spec", "patches")
			found++
		case "Cluster":
			edit(o, func(l []any) []any {
				l = slices.DeleteFunc(l, named("imageRepository"))
				return append(l, map[string]any{"name": "imageRepository", "value": externalPatchRepository})
			}, "spec", "topology", "variables")
			found++
		}
	}
	require.Equal(t, 2, found, "the manifest has one ClusterClass and one Cluster")
}

const externalPatchRepository = "registry.k8s.io"

// requireExternalPatchRanOnWorkers checks that every worker node ran the command the external
// patch added to its bootstrap data (the bootstrap log of the node container holds its output).
func (s *suite) requireExternalPatchRanOnWorkers(n int) {
	s.t.Helper()
	cs, err := s.containers(roleLabel + "=worker")
	require.NoError(s.t, err)
	require.Len(s.t, cs, n)
	for _, c := range cs {
		name := strings.TrimPrefix(c.Names[0], "/")
		out, code, err := framework.Exec(s.ctx, s.docker, name, "cat", "/var/lib/capstan/bootstrap/log")
		require.NoError(s.t, err)
		require.Equal(s.t, 0, code, "reading the bootstrap log of %s: %s", name, out)
		require.Contains(s.t, out, "imageRepository="+externalPatchRepository,
			"worker %s ran the command the external patch added", name)
	}
}
