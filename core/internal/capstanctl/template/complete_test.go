package template

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Everything Capstan generates or ships must be complete as written, so that a management
// cluster without Capstan's admission policies (upstream's core driving Capstan's providers)
// reconciles it unchanged: a MachineDeployment selects its own Machines by the cluster-name
// label, its template carries the selector's labels, it names a rollout strategy; a MachinePool
// carries the cluster-name label; a KubeadmControlPlane names its replicas and rollout strategy;
// and every version has its "v".
func TestRender_EveryFlavorIsCompleteWithoutDefaulting(t *testing.T) {
	for _, flavor := range Flavors() {
		t.Run(flavor, func(t *testing.T) {
			raw, err := Load(flavor)
			require.NoError(t, err)
			rendered, err := Render(raw, Values{Flags: quickstartFlags, Env: noEnv, FlagDefaults: flagDefaults})
			require.NoError(t, err)
			objs, err := Objects(rendered)
			require.NoError(t, err)
			requireComplete(t, objs)
		})
	}
}

func TestExamples_AreCompleteWithoutDefaulting(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "examples", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			objs, err := Objects(data)
			require.NoError(t, err)
			requireComplete(t, objs)
		})
	}
}

func requireComplete(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == "Cluster" {
			require.Empty(t, cniGaps(o, objs), "Cluster %s", o.GetName())
		}
		what := o.GetKind() + " " + o.GetName()
		if o.GroupVersionKind().Group == clusterv1.GroupVersion.Group {
			require.Equal(t, clusterv1.GroupVersion.Version, o.GroupVersionKind().Version, what)
		}
		if v, ok, _ := unstructured.NestedString(o.Object, "spec", "version"); ok {
			require.True(t, strings.HasPrefix(v, "v"), "%s: spec.version %q has no v", what, v)
		}
		if v, ok, _ := unstructured.NestedString(o.Object, "spec", "topology", "version"); ok {
			require.True(t, strings.HasPrefix(v, "v"), "%s: spec.topology.version %q has no v", what, v)
		}
		switch o.GetKind() {
		case "MachineDeployment":
			md := &clusterv1.MachineDeployment{}
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o.Object, md, true), what)
			require.Empty(t, machineDeploymentGaps(md), what)
		case "MachinePool":
			mp := &clusterv1.MachinePool{}
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o.Object, mp, true), what)
			require.Empty(t, machinePoolGaps(mp), what)
		case "KubeadmControlPlane":
			require.Empty(t, controlPlaneGaps(o), what)
		}
	}
}

// machinePoolGaps lists what upstream's defaulting webhook (and Capstan's policy, which also
// labels the template) would have to add to mp.
func machinePoolGaps(mp *clusterv1.MachinePool) []string {
	var gaps []string
	cluster := mp.Spec.ClusterName
	if mp.Labels[clusterv1.ClusterNameLabel] != cluster {
		gaps = append(gaps, fmt.Sprintf("metadata.labels lacks %s: %s", clusterv1.ClusterNameLabel, cluster))
	}
	if mp.Spec.Template.Labels[clusterv1.ClusterNameLabel] != cluster {
		gaps = append(gaps, fmt.Sprintf("spec.template.metadata.labels lacks %s: %s", clusterv1.ClusterNameLabel, cluster))
	}
	if mp.Spec.Replicas == nil {
		gaps = append(gaps, "spec.replicas is unset")
	}
	return gaps
}

// controlPlaneGaps lists what upstream's KubeadmControlPlane defaulting would have to add to kcp
// (read unstructured: the core module does not import the control plane's types): its replicas
// and its rollout strategy, RollingUpdate with maxSurge 1.
func controlPlaneGaps(kcp *unstructured.Unstructured) []string {
	var gaps []string
	if _, ok, _ := unstructured.NestedFieldNoCopy(kcp.Object, "spec", "replicas"); !ok {
		gaps = append(gaps, "spec.replicas is unset")
	}
	if typ, _, _ := unstructured.NestedString(kcp.Object, "spec", "rollout", "strategy", "type"); typ != "RollingUpdate" {
		gaps = append(gaps, fmt.Sprintf("spec.rollout.strategy.type is %q, not RollingUpdate", typ))
	}
	if _, ok, _ := unstructured.NestedFieldNoCopy(kcp.Object, "spec", "rollout", "strategy", "rollingUpdate", "maxSurge"); !ok {
		gaps = append(gaps, "spec.rollout.strategy.rollingUpdate.maxSurge is unset")
	}
	return gaps
}

// machineDeploymentGaps lists what upstream's defaulting webhook would have to add to md.
func machineDeploymentGaps(md *clusterv1.MachineDeployment) []string {
	var gaps []string
	cluster := md.Spec.ClusterName
	if md.Labels[clusterv1.ClusterNameLabel] != cluster {
		gaps = append(gaps, fmt.Sprintf("metadata.labels lacks %s: %s", clusterv1.ClusterNameLabel, cluster))
	}
	if md.Spec.Selector.MatchLabels[clusterv1.ClusterNameLabel] != cluster {
		gaps = append(gaps, fmt.Sprintf("spec.selector.matchLabels lacks %s: %s", clusterv1.ClusterNameLabel, cluster))
	}
	if !labels.SelectorFromSet(md.Spec.Selector.MatchLabels).Matches(labels.Set(md.Spec.Template.Labels)) {
		gaps = append(gaps, "spec.template.metadata.labels do not carry spec.selector.matchLabels")
	}
	if md.Spec.Replicas == nil {
		gaps = append(gaps, "spec.replicas is unset")
	}
	strategy := md.Spec.Rollout.Strategy
	if strategy.Type == "" {
		gaps = append(gaps, "spec.rollout.strategy.type is unset")
	}
	if strategy.Type == clusterv1.RollingUpdateMachineDeploymentStrategyType &&
		(strategy.RollingUpdate.MaxSurge == nil || strategy.RollingUpdate.MaxUnavailable == nil) {
		gaps = append(gaps, "spec.rollout.strategy.rollingUpdate lacks maxSurge or maxUnavailable")
	}
	if v := md.Spec.Template.Spec.Version; v != "" && !strings.HasPrefix(v, "v") {
		gaps = append(gaps, "spec.template.spec.version has no v")
	}
	return gaps
}

// cniGaps lists why cluster would come up without a CNI: its nodes become Ready only when a
// ClusterResourceSet in the same manifest selects it and every resource that set names (a
// ConfigMap holding a DaemonSet) is in the manifest too.
func cniGaps(cluster *unstructured.Unstructured, objs []*unstructured.Unstructured) []string {
	byName := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		byName[o.GetKind()+"/"+o.GetName()] = o
	}
	for _, o := range objs {
		if o.GetKind() != "ClusterResourceSet" || o.GetNamespace() != cluster.GetNamespace() {
			continue
		}
		selector, _, _ := unstructured.NestedStringMap(o.Object, "spec", "clusterSelector", "matchLabels")
		if len(selector) == 0 || !labels.SelectorFromSet(selector).Matches(labels.Set(cluster.GetLabels())) {
			continue
		}
		resources, _, _ := unstructured.NestedSlice(o.Object, "spec", "resources")
		var gaps []string
		for _, r := range resources {
			ref, _ := r.(map[string]any)
			res := byName[fmt.Sprint(ref["kind"])+"/"+fmt.Sprint(ref["name"])]
			if res == nil {
				gaps = append(gaps, fmt.Sprintf("ClusterResourceSet %s names %s %s, which is not in the manifest", o.GetName(), ref["kind"], ref["name"]))
				continue
			}
			data, _, _ := unstructured.NestedStringMap(res.Object, "data")
			found := false
			for _, v := range data {
				found = found || strings.Contains(v, "kind: DaemonSet")
			}
			if !found {
				gaps = append(gaps, fmt.Sprintf("%s %s holds no DaemonSet", res.GetKind(), res.GetName()))
			}
		}
		return gaps
	}
	return []string{"no ClusterResourceSet in the manifest selects it by its labels (the CNI would never be installed)"}
}
