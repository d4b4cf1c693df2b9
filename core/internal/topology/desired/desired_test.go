package desired

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

// counter returns deterministic "random" parts: r0001, r0002, ...
func counter() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("r%04d", n) }
}

func tmpl(apiVersion, kind, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace("classes")
	u.SetName(name)
	return u
}

func classRef(u *unstructured.Unstructured) clusterv1.ClusterClassTemplateReference {
	return clusterv1.ClusterClassTemplateReference{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Name: u.GetName()}
}

// quickStart is a class with a machine-based control plane, one worker class with a health
// check, and the templates it references.
func quickStart() *Input {
	infra := tmpl("infrastructure.cluster.x-k8s.io/v1beta2", "DevClusterTemplate", "dev-cluster",
		map[string]any{"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"from-template": "yes"}},
			"spec": map[string]any{"network": "default"}}})
	cp := tmpl("controlplane.cluster.x-k8s.io/v1beta2", "KubeadmControlPlaneTemplate", "kcp",
		map[string]any{"template": map[string]any{"spec": map[string]any{"kubeadmConfigSpec": map[string]any{"format": "cloud-config"}}}})
	cpMachines := tmpl("infrastructure.cluster.x-k8s.io/v1beta2", "DevMachineTemplate", "cp-machines",
		map[string]any{"template": map[string]any{"spec": map[string]any{"image": "node:v1"}}})
	bootstrap := tmpl("bootstrap.cluster.x-k8s.io/v1beta2", "KubeadmConfigTemplate", "workers", map[string]any{"template": map[string]any{"spec": map[string]any{}}})
	workers := tmpl("infrastructure.cluster.x-k8s.io/v1beta2", "DevMachineTemplate", "workers", map[string]any{"template": map[string]any{"spec": map[string]any{"image": "node:v1"}}})
	workers.SetAnnotations(map[string]string{corev1.LastAppliedConfigAnnotation: "{}", conversion.DataAnnotation: `{"spec":{"template":{"spec":{"legacy":"x"}}}}`, "keep": "me"})
	cc := &clusterv1.ClusterClass{
		ObjectMeta: metav1.ObjectMeta{Namespace: "classes", Name: "quick-start"},
		Spec: clusterv1.ClusterClassSpec{
			Infrastructure: clusterv1.InfrastructureClass{TemplateRef: classRef(infra)},
			ControlPlane: clusterv1.ControlPlaneClass{
				TemplateRef:           classRef(cp),
				MachineInfrastructure: clusterv1.ControlPlaneClassMachineInfrastructureTemplate{TemplateRef: classRef(cpMachines)},
				Metadata:              clusterv1.ObjectMeta{Labels: map[string]string{"tier": "class", "class-only": "x"}},
				Deletion:              clusterv1.MachineDeletionSpec{NodeDrainTimeoutSeconds: ptr.To[int32](30), NodeDeletionTimeoutSeconds: ptr.To[int32](10)},
			},
			Workers: clusterv1.WorkersClass{MachineDeployments: []clusterv1.MachineDeploymentClass{{
				Class:          "default-worker",
				Bootstrap:      clusterv1.WorkerClassBootstrapTemplate{TemplateRef: classRef(bootstrap)},
				Infrastructure: clusterv1.WorkerClassInfrastructureTemplate{TemplateRef: classRef(workers)},
				FailureDomain:  "class-fd",
				Deletion:       clusterv1.MachineDeploymentClassMachineDeletionSpec{Order: clusterv1.MachineSetDeletionOrder("Oldest")},
				HealthCheck: clusterv1.MachineDeploymentClassHealthCheck{
					Checks:      clusterv1.HealthCheckChecks{UnhealthyNodeConditions: []clusterv1.UnhealthyNodeCondition{{Type: "Ready", Status: "False", TimeoutSeconds: ptr.To[int32](300)}}},
					Remediation: clusterv1.MachineDeploymentClassHealthCheckRemediation{MaxInFlight: ptr.To(intstr.FromInt32(2))},
				},
				Rollout: clusterv1.MachineDeploymentClassRolloutSpec{Strategy: clusterv1.MachineDeploymentClassRolloutStrategy{Type: "OnDelete"}},
			}}},
		},
	}
	c := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "c1", UID: "cluster-uid"},
		Spec: clusterv1.ClusterSpec{Topology: clusterv1.Topology{
			ClassRef: clusterv1.ClusterClassRef{Name: "quick-start", Namespace: "classes"},
			Version:  "v1.37.2",
			ControlPlane: clusterv1.ControlPlaneTopology{
				Replicas: ptr.To[int32](3),
				Metadata: clusterv1.ObjectMeta{Labels: map[string]string{"tier": "topology"}},
				Deletion: clusterv1.MachineDeletionSpec{NodeDrainTimeoutSeconds: ptr.To[int32](60)},
			},
			Workers: clusterv1.WorkersTopology{MachineDeployments: []clusterv1.MachineDeploymentTopology{{
				Class: "default-worker", Name: "md-0", Replicas: ptr.To[int32](2), FailureDomain: "fd-1",
				Metadata: clusterv1.ObjectMeta{Annotations: map[string]string{clusterv1.ClusterTopologyDeferUpgradeAnnotation: "", "note": "x"}},
			}}},
		}},
	}
	return &Input{
		Cluster: c, Class: cc, Random: counter(),
		Templates: Templates{
			InfrastructureCluster: infra, ControlPlane: cp, ControlPlaneMachineInfrastructure: cpMachines,
			MachineDeployments: map[string]WorkerTemplates{"default-worker": {Bootstrap: bootstrap, Infrastructure: workers}},
		},
	}
}

func nested(t *testing.T, u *unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	require.NoError(t, err)
	require.True(t, found, "%s %s has no %s", u.GetKind(), u.GetName(), strings.Join(path, "."))
	return v
}

func TestCompute_GeneratesInfrastructureClusterAndControlPlaneFromTheClassTemplates(t *testing.T) {
	in := quickStart()
	s, err := Compute(in)
	require.NoError(t, err)

	ic := s.InfrastructureCluster
	require.Equal(t, "DevCluster", ic.GetKind())
	require.Equal(t, "team-a", ic.GetNamespace())
	require.Equal(t, "c1-r0001", ic.GetName(), "default naming template: cluster name and random part")
	require.Equal(t, "default", nested(t, ic, "spec", "network"))
	require.Equal(t, map[string]string{"from-template": "yes", clusterv1.ClusterNameLabel: "c1", clusterv1.ClusterTopologyOwnedLabel: ""}, ic.GetLabels())
	require.Equal(t, "dev-cluster", ic.GetAnnotations()[clusterv1.TemplateClonedFromNameAnnotation])
	require.Equal(t, "DevClusterTemplate.infrastructure.cluster.x-k8s.io", ic.GetAnnotations()[clusterv1.TemplateClonedFromGroupKindAnnotation])
	require.Equal(t, "cluster-uid", string(ic.GetOwnerReferences()[0].UID))
	require.Equal(t, clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DevCluster", Name: "c1-r0001"}, s.InfrastructureRef)

	cp := s.ControlPlane
	require.Equal(t, "KubeadmControlPlane", cp.GetKind())
	require.Equal(t, "c1-r0002", cp.GetName())
	require.Equal(t, clusterv1.ContractVersionedObjectReference{APIGroup: "controlplane.cluster.x-k8s.io", Kind: "KubeadmControlPlane", Name: "c1-r0002"}, s.ControlPlaneRef)
	require.Equal(t, "v1.37.2", nested(t, cp, "spec", "version"))
	require.Equal(t, int64(3), nested(t, cp, "spec", "replicas"))
	require.Equal(t, "cloud-config", nested(t, cp, "spec", "kubeadmConfigSpec", "format"))
	require.Equal(t, "topology", cp.GetLabels()["tier"], "topology metadata wins over the class's")
	require.Equal(t, "x", cp.GetLabels()["class-only"])
	require.Equal(t, map[string]any{"tier": "topology", "class-only": "x"}, nested(t, cp, "spec", "machineTemplate", "metadata", "labels"))

	cpm := s.ControlPlaneMachineInfrastructure
	require.Equal(t, "DevMachineTemplate", cpm.GetKind())
	require.Equal(t, "c1-r0004", cpm.GetName(), "template copies are named <cluster>-<random>")
	require.Equal(t, "node:v1", nested(t, cpm, "spec", "template", "spec", "image"))
	require.Equal(t, map[string]any{"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DevMachineTemplate", "name": "c1-r0004"},
		nested(t, cp, "spec", "machineTemplate", "spec", "infrastructureRef"))
	require.Equal(t, map[string]any{"nodeDrainTimeoutSeconds": int64(60), "nodeDeletionTimeoutSeconds": int64(10)},
		nested(t, cp, "spec", "machineTemplate", "spec", "deletion"), "each timeout the topology sets replaces the class's")
	require.Nil(t, s.ControlPlaneHealthCheck, "neither the class nor the topology defines a control-plane health check")
}

func TestCompute_GeneratesOneMachineDeploymentPerTopologyEntry(t *testing.T) {
	in := quickStart()
	s, err := Compute(in)
	require.NoError(t, err)
	require.Len(t, s.MachineDeployments, 1)
	mds := s.MachineDeployments[0]
	md := mds.Object
	require.Equal(t, "c1-md-0-r0003", md.Name, "default naming template: cluster, topology name, random")
	selector := map[string]string{clusterv1.ClusterNameLabel: "c1", clusterv1.ClusterTopologyOwnedLabel: "", clusterv1.ClusterTopologyMachineDeploymentNameLabel: "md-0"}
	require.Equal(t, selector, md.Spec.Selector.MatchLabels)
	require.Equal(t, selector, md.Labels)
	require.Equal(t, selector, md.Spec.Template.Labels)
	require.Equal(t, map[string]string{"note": "x"}, md.Annotations, "the defer-upgrade annotation is not propagated")
	require.Equal(t, ptr.To[int32](2), md.Spec.Replicas)
	require.Equal(t, "c1", md.Spec.ClusterName)
	require.Equal(t, "v1.37.2", md.Spec.Template.Spec.Version)
	require.Equal(t, "fd-1", md.Spec.Template.Spec.FailureDomain, "the topology's failure domain replaces the class's")
	require.Equal(t, clusterv1.MachineSetDeletionOrder("Oldest"), md.Spec.Deletion.Order)
	require.Equal(t, clusterv1.MachineDeploymentRolloutStrategyType("OnDelete"), md.Spec.Rollout.Strategy.Type)
	require.Equal(t, ptr.To(intstr.FromInt32(2)), md.Spec.Remediation.MaxInFlight)

	require.Equal(t, "c1-md-0-r0005", mds.Bootstrap.GetName())
	require.Equal(t, "c1-md-0-r0006", mds.Infrastructure.GetName())
	require.Equal(t, "md-0", mds.Infrastructure.GetLabels()[clusterv1.ClusterTopologyMachineDeploymentNameLabel])
	require.Equal(t, map[string]string{"keep": "me", clusterv1.TemplateClonedFromNameAnnotation: "workers",
		clusterv1.TemplateClonedFromGroupKindAnnotation: "DevMachineTemplate.infrastructure.cluster.x-k8s.io"}, mds.Infrastructure.GetAnnotations(),
		"neither kubectl's last-applied annotation nor the template's conversion data is copied")
	require.Equal(t, clusterv1.ContractVersionedObjectReference{APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfigTemplate", Name: "c1-md-0-r0005"},
		md.Spec.Template.Spec.Bootstrap.ConfigRef)
	require.Equal(t, "c1-md-0-r0006", md.Spec.Template.Spec.InfrastructureRef.Name)

	mhc := mds.HealthCheck
	require.NotNil(t, mhc, "the class defines a health check")
	require.Equal(t, md.Name, mhc.Name)
	require.Equal(t, map[string]string{clusterv1.ClusterTopologyOwnedLabel: "", clusterv1.ClusterTopologyMachineDeploymentNameLabel: "md-0"}, mhc.Spec.Selector.MatchLabels)
	require.Equal(t, ptr.To[int32](600), mhc.Spec.Checks.NodeStartupTimeoutSeconds, "upstream's webhook default, applied in memory")
	require.Len(t, mhc.Spec.Checks.UnhealthyNodeConditions, 1)
}

func TestCompute_KeepsTheNamesOfExistingObjects(t *testing.T) {
	in := quickStart()
	in.Current = Current{
		InfrastructureClusterName: "ic", ControlPlaneName: "cp", ControlPlaneMachineInfrastructureName: "cpm",
		MachineDeployments: map[string]CurrentWorker{"md-0": {Name: "md", BootstrapName: "b", InfrastructureName: "i"}},
	}
	s, err := Compute(in)
	require.NoError(t, err)
	got := []string{s.InfrastructureCluster.GetName(), s.ControlPlane.GetName(), s.ControlPlaneMachineInfrastructure.GetName(),
		s.MachineDeployments[0].Object.Name, s.MachineDeployments[0].Bootstrap.GetName(), s.MachineDeployments[0].Infrastructure.GetName()}
	require.Empty(t, cmp.Diff([]string{"ic", "cp", "cpm", "md", "b", "i"}, got))
}

func TestCompute_HealthChecksFollowClassAndTopology(t *testing.T) {
	cpCheck := clusterv1.HealthCheckChecks{NodeStartupTimeoutSeconds: ptr.To[int32](120)}
	for _, tc := range []struct {
		name           string
		change         func(in *Input)
		wantCP, wantMD bool
		wantMaxInFl    *intstr.IntOrString
	}{
		{name: "class defines both", change: func(in *Input) { in.Class.Spec.ControlPlane.HealthCheck.Checks = cpCheck },
			wantCP: true, wantMD: true, wantMaxInFl: ptr.To(intstr.FromInt32(2))},
		{name: "topology disables", change: func(in *Input) {
			in.Class.Spec.ControlPlane.HealthCheck.Checks = cpCheck
			in.Cluster.Spec.Topology.ControlPlane.HealthCheck.Enabled = ptr.To(false)
			in.Cluster.Spec.Topology.Workers.MachineDeployments[0].HealthCheck.Enabled = ptr.To(false)
		}},
		{name: "topology defines it wholesale", change: func(in *Input) {
			in.Cluster.Spec.Topology.ControlPlane.HealthCheck.Checks = cpCheck
			in.Cluster.Spec.Topology.Workers.MachineDeployments[0].HealthCheck.Remediation.MaxInFlight = ptr.To(intstr.FromString("50%"))
		}, wantCP: true, wantMD: true, wantMaxInFl: ptr.To(intstr.FromString("50%"))},
		{name: "control plane without machine infrastructure has none", change: func(in *Input) {
			in.Class.Spec.ControlPlane.HealthCheck.Checks = cpCheck
			in.Templates.ControlPlaneMachineInfrastructure = nil
		}, wantMD: true, wantMaxInFl: ptr.To(intstr.FromInt32(2))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := quickStart()
			tc.change(in)
			s, err := Compute(in)
			require.NoError(t, err)
			require.Equal(t, tc.wantCP, s.ControlPlaneHealthCheck != nil)
			md := s.MachineDeployments[0]
			require.Equal(t, tc.wantMD, md.HealthCheck != nil)
			require.Equal(t, tc.wantMaxInFl, md.Object.Spec.Remediation.MaxInFlight)
			if tc.wantCP {
				require.Equal(t, s.ControlPlane.GetName(), s.ControlPlaneHealthCheck.Name)
				require.Equal(t, ptr.To[int32](120), s.ControlPlaneHealthCheck.Spec.Checks.NodeStartupTimeoutSeconds)
				require.Equal(t, map[string]string{clusterv1.ClusterTopologyOwnedLabel: "", clusterv1.MachineControlPlaneLabel: ""},
					s.ControlPlaneHealthCheck.Spec.Selector.MatchLabels)
			}
		})
	}
}

func TestCompute_RefusesUnknownClassesAndBadNamingTemplates(t *testing.T) {
	in := quickStart()
	in.Cluster.Spec.Topology.Workers.MachineDeployments[0].Class = "nope"
	_, err := Compute(in)
	require.ErrorContains(t, err, "spec.topology.workers.machineDeployments[md-0].class")

	in = quickStart()
	in.Class.Spec.Infrastructure.Naming.Template = "{{ .cluster.nope }}"
	_, err = Compute(in)
	require.ErrorContains(t, err, "spec.infrastructure.naming.template")

	in = quickStart()
	in.Templates.ControlPlane.SetKind("KubeadmControlPlane")
	_, err = Compute(in)
	require.ErrorContains(t, err, "must end in Template")
}

func TestRenderName_TruncatesLongNamesAndUsesCustomTemplates(t *testing.T) {
	name, err := RenderName("{{ .cluster.name }}-{{ .machineDeployment.topologyName }}-x", DefaultMachineDeploymentNaming, "c", "md", counter())
	require.NoError(t, err)
	require.Equal(t, "c-md-x", name)

	long := strings.Repeat("a", 70)
	name, err = RenderName("", DefaultControlPlaneNaming, long, "", counter())
	require.NoError(t, err)
	require.Len(t, name, 63)
	require.Equal(t, strings.Repeat("a", 58)+"r0002", name)

	_, err = RenderName("{{ .machineDeployment.topologyName }}", DefaultControlPlaneNaming, "c", "", counter())
	require.ErrorContains(t, err, "machineDeployment")

	require.Regexp(t, `^[bcdfghjklmnpqrstvwxz2456789]{5}$`, RandomSuffix())
}

func TestCompute_PatchSeesPerEntryCopiesAndNeverTheInput(t *testing.T) {
	in := quickStart()
	in.Cluster.Spec.Topology.Workers.MachineDeployments = append(in.Cluster.Spec.Topology.Workers.MachineDeployments,
		clusterv1.MachineDeploymentTopology{Class: "default-worker", Name: "md-1"})
	in.Patch = func(tpls *Templates, _ *Names, _ Versions) error {
		return unstructured.SetNestedField(tpls.MachineDeployments["md-1"].Infrastructure.Object, "node:v2", "spec", "template", "spec", "image")
	}
	s, err := Compute(in)
	require.NoError(t, err)
	require.Equal(t, "node:v1", nested(t, s.MachineDeployments[0].Infrastructure, "spec", "template", "spec", "image"))
	require.Equal(t, "node:v2", nested(t, s.MachineDeployments[1].Infrastructure, "spec", "template", "spec", "image"))
	require.Equal(t, "node:v1", nested(t, in.Templates.MachineDeployments["default-worker"].Infrastructure, "spec", "template", "spec", "image"))

	in.Patch = func(*Templates, *Names, Versions) error { return fmt.Errorf("patch p1 failed") }
	_, err = Compute(in)
	require.ErrorContains(t, err, "patch p1")
}

// TestCompute_VersionsFollowTheUpgradePlan: the plan's versions, not spec.topology.version, go
// into the ControlPlane and the MachineDeployments, and the patch sees them.
func TestCompute_VersionsFollowTheUpgradePlan(t *testing.T) {
	in := quickStart()
	in.Cluster.Spec.Topology.Version = "v1.38.0"
	in.Versions = Versions{ControlPlane: "v1.38.0", MachineDeployments: map[string]string{"md-0": "v1.37.2"}}
	var seen Versions
	in.Patch = func(_ *Templates, _ *Names, v Versions) error { seen = v; return nil }
	s, err := Compute(in)
	require.NoError(t, err)
	require.Equal(t, "v1.38.0", nested(t, s.ControlPlane, "spec", "version"))
	require.Equal(t, "v1.37.2", s.MachineDeployments[0].Object.Spec.Template.Spec.Version)
	require.Equal(t, in.Versions, seen)

	in.Versions = Versions{}
	s, err = Compute(in)
	require.NoError(t, err)
	require.Equal(t, "v1.38.0", s.MachineDeployments[0].Object.Spec.Template.Spec.Version, "no plan entry: the topology's version")
}
