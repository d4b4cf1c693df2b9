package editplan_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/kcprollout"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/capstanctl/editplan"
)

var (
	kcpGVK          = schema.GroupVersionKind{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmControlPlane"}
	kubeadmConfigGV = schema.GroupVersion{Group: "bootstrap.cluster.x-k8s.io", Version: "v1beta2"}
)

// kcpSpec is the spec of the test's KubeadmControlPlane: 3 replicas with stacked etcd, an
// init and a join part.
func kcpSpec(maxSurge int64) map[string]any {
	return map[string]any{
		"replicas": int64(3),
		"version":  "v1.37.2",
		"rollout":  map[string]any{"strategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": maxSurge}}},
		"machineTemplate": map[string]any{"spec": map[string]any{"infrastructureRef": map[string]any{
			"apiGroup": crds.GenericInfrastructureMachineTemplateGVK.Group, "kind": crds.GenericInfrastructureMachineTemplateGVK.Kind, "name": "cp"}}},
		"kubeadmConfigSpec": map[string]any{
			"clusterConfiguration": map[string]any{"apiServer": map[string]any{"extraArgs": []any{map[string]any{"name": "audit-log-maxage", "value": "7"}}}},
			"initConfiguration":    map[string]any{"nodeRegistration": map[string]any{"kubeletExtraArgs": []any{map[string]any{"name": "v", "value": "2"}}}},
			"joinConfiguration":    map[string]any{"nodeRegistration": map[string]any{"kubeletExtraArgs": []any{map[string]any{"name": "v", "value": "3"}}}},
		},
	}
}

// controlPlane creates a Cluster with failure domains a, b and c, a KubeadmControlPlane of
// kcpSpec(maxSurge) and its Machines cp-a (kubeadm init, in a), cp-b and cp-c (joined, in b and
// c), each with its KubeadmConfig and InfraMachine as the controller makes them, a Node and a
// healthy etcd member, all up to date (as status says).
func controlPlane(t *testing.T, maxSurge int64) *unstructured.Unstructured {
	t.Helper()
	ctx := context.Background()
	ns := env.CreateNamespace(t, "plan-kcp")
	cl := ctltest.Cluster(t, env, ns, "c1")
	envtest.UpdateStatus(t, env.Client, cl, func() {
		for _, fd := range []string{"a", "b", "c"} {
			cl.Status.FailureDomains = append(cl.Status.FailureDomains, clusterv1.FailureDomain{Name: fd, ControlPlane: ptr.To(true)})
		}
	})
	kcp := crds.New(kcpGVK, ns, "cp")
	kcp.SetLabels(map[string]string{clusterv1.ClusterNameLabel: cl.Name})
	kcp.Object["spec"] = kcpSpec(maxSurge)
	require.NoError(t, env.Client.Create(ctx, kcp))
	envtest.UpdateStatus(t, env.Client, kcp, func() {
		kcp.Object["status"] = map[string]any{"replicas": int64(3), "upToDateReplicas": int64(3), "readyReplicas": int64(3), "availableReplicas": int64(3)}
	})
	for i, name := range []string{"cp-a", "cp-b", "cp-c"} {
		controlPlaneMachine(t, cl, kcp, name, string(rune('a'+i)), i == 0)
	}
	return kcp
}

// controlPlaneMachine creates one Machine of kcp as its controller would.
func controlPlaneMachine(t *testing.T, cl *clusterv1.Cluster, kcp *unstructured.Unstructured, name, domain string, init bool) {
	t.Helper()
	ctx := context.Background()
	owner := metav1.OwnerReference{APIVersion: kcpGVK.GroupVersion().String(), Kind: kcpGVK.Kind, Name: kcp.GetName(), UID: kcp.GetUID(), Controller: ptr.To(true)}
	spec, _, _ := unstructured.NestedMap(kcp.Object, "spec", "kubeadmConfigSpec")
	configSpec := kcprollout.RoleConfig(spec, init)
	cfg := crds.New(kubeadmConfigGV.WithKind("KubeadmConfig"), cl.Namespace, name)
	cfg.Object["spec"] = configSpec
	require.NoError(t, env.Client.Create(ctx, cfg))
	infra := crds.New(crds.GenericInfrastructureMachineGVK, cl.Namespace, name)
	infra.SetAnnotations(map[string]string{clusterv1.TemplateClonedFromNameAnnotation: "cp",
		clusterv1.TemplateClonedFromGroupKindAnnotation: crds.GenericInfrastructureMachineTemplateGVK.GroupKind().String()})
	require.NoError(t, env.Client.Create(ctx, infra))
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Namespace: cl.Namespace, Name: name, OwnerReferences: []metav1.OwnerReference{owner},
			Labels: map[string]string{clusterv1.ClusterNameLabel: cl.Name, clusterv1.MachineControlPlaneLabel: "", clusterv1.MachineControlPlaneNameLabel: kcp.GetName()}},
		Spec: clusterv1.MachineSpec{
			ClusterName: cl.Name, Version: "v1.37.2", FailureDomain: domain,
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: kubeadmConfigGV.Group, Kind: "KubeadmConfig", Name: name}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: crds.GenericInfrastructureMachineGVK.Group, Kind: crds.GenericInfrastructureMachineGVK.Kind, Name: name},
		},
	}
	require.NoError(t, env.Client.Create(ctx, m))
	envtest.UpdateStatus(t, env.Client, m, func() {
		m.Status.NodeRef = clusterv1.MachineNodeReference{Name: name}
		m.Status.Conditions = []metav1.Condition{ctltest.Condition("EtcdMemberHealthy", metav1.ConditionTrue, "Healthy", "", 0)}
	})
}

// kcpEditFile writes kcp with edit applied to a copy of its spec, as a user would write it.
func kcpEditFile(t *testing.T, kcp *unstructured.Unstructured, edit func(spec map[string]any)) string {
	t.Helper()
	e := crds.New(kcpGVK, kcp.GetNamespace(), kcp.GetName())
	e.SetLabels(kcp.GetLabels())
	spec, _, _ := unstructured.NestedMap(kcp.Object, "spec")
	edit(spec)
	e.Object["spec"] = runtime.DeepCopyJSON(spec)
	data, err := yaml.Marshal(e.Object)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "kcp.yaml")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

func set(t *testing.T, obj map[string]any, value any, path ...string) {
	t.Helper()
	require.NoError(t, unstructured.SetNestedField(obj, value, path...))
}

func TestPlan_KubeadmControlPlaneClusterConfigurationChangeReplacesEveryMachineWithinQuorum(t *testing.T) {
	kcp := controlPlane(t, 1)
	file := kcpEditFile(t, kcp, func(spec map[string]any) {
		set(t, spec, []any{map[string]any{"name": "audit-log-maxage", "value": "30"}}, "kubeadmConfigSpec", "clusterConfiguration", "apiServer", "extraArgs")
	})
	res := planJSON(t, file)
	require.Len(t, res.Objects, 1)
	p := res.Objects[0]
	require.Equal(t, editplan.Replace, p.Outcome, p.Notes)
	// The controller's order: a surge Machine first, then the outdated Machine of the fullest
	// failure domain (the new one went to a, the first of the emptiest), and so on.
	require.Equal(t, []string{"cp-a", "cp-b", "cp-c"}, p.Replaced)
	require.Len(t, p.Steps, 6)
	require.Equal(t, editplan.Step{Create: 1, Surge: 1, EtcdMembers: 4, EtcdQuorum: 3}, p.Steps[0])
	require.Equal(t, editplan.Step{Delete: []string{"cp-a"}, EtcdMembers: 3, EtcdQuorum: 2}, p.Steps[1])
	require.Contains(t, p.Notes, "Machine cp-b is outdated: KubeadmConfig cp-b differs in spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraArgs")
	for _, n := range p.Notes {
		require.NotContains(t, n, "tolerates", "with maxSurge 1 every step keeps today's fault tolerance")
	}

	r := run(t, "plan", "-f", file, "--fail-on-replace")
	require.Equal(t, 3, r.code, r.stdout+r.stderr)
	require.Contains(t, r.stdout, "step 1: create 1 (1 surge) (then etcd: 4 members, quorum 3)")
}

func TestPlan_KubeadmControlPlaneWithoutSurgeWarnsOfTheQuorumAtEachStep(t *testing.T) {
	kcp := controlPlane(t, 0)
	file := kcpEditFile(t, kcp, func(spec map[string]any) { set(t, spec, "v1.37.3", "version") })
	p := planJSON(t, file).Objects[0]
	require.Equal(t, []string{"cp-a", "cp-b", "cp-c"}, p.Replaced)
	require.Equal(t, editplan.Step{Delete: []string{"cp-a"}, EtcdMembers: 2, EtcdQuorum: 2}, p.Steps[0])
	require.Contains(t, p.Notes, "Machine cp-a is outdated: version v1.37.2, want v1.37.3")
	require.Contains(t, p.Notes, "after step 1 etcd has 2 members (quorum 2) and tolerates 0 failed member(s), 1 today: a member lost then stops the control plane's API")
}

func TestPlan_KubeadmControlPlaneInitConfigurationChangeReplacesOnlyTheInitMachine(t *testing.T) {
	kcp := controlPlane(t, 1)
	file := kcpEditFile(t, kcp, func(spec map[string]any) {
		set(t, spec, []any{map[string]any{"name": "v", "value": "4"}}, "kubeadmConfigSpec", "initConfiguration", "nodeRegistration", "kubeletExtraArgs")
	})
	p := planJSON(t, file).Objects[0]
	require.Equal(t, []string{"cp-a"}, p.Replaced, "a joined Machine's KubeadmConfig has no initConfiguration")
	require.Len(t, p.Steps, 2)
}

func TestPlan_KubeadmControlPlaneMetadataChangeIsInPlaceAndAnUnfinishedRolloutGoesOn(t *testing.T) {
	kcp := controlPlane(t, 1)
	// cp-c's KubeadmConfig differs from the spec on a field the edit does not touch.
	cfg := &unstructured.Unstructured{}
	cfg.SetGroupVersionKind(kubeadmConfigGV.WithKind("KubeadmConfig"))
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: kcp.GetNamespace(), Name: "cp-c"}, cfg))
	envtest.Update(t, env.Client, cfg, func() {
		set(t, cfg.Object, []any{map[string]any{"name": "audit-log-maxage", "value": "1"}}, "spec", "clusterConfiguration", "apiServer", "extraArgs")
	})
	file := kcpEditFile(t, kcp, func(spec map[string]any) { set(t, spec, "gold", "machineTemplate", "metadata", "labels", "tier") })

	// The controller says every Machine is up to date: a difference the edit does not touch is
	// not the plan's to judge (a stored KubeadmConfig may spell a value otherwise).
	p := planJSON(t, file).Objects[0]
	require.Equal(t, editplan.InPlace, p.Outcome, p.Notes)
	require.Equal(t, []string{"spec.machineTemplate.metadata.labels.tier"}, p.InPlace)
	r := run(t, "plan", "-f", file, "--fail-on-replace")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	// It says one is not: the rollout under way goes on after the edit.
	envtest.UpdateStatus(t, env.Client, kcp, func() { set(t, kcp.Object, int64(2), "status", "upToDateReplicas") })
	p = planJSON(t, file).Objects[0]
	require.Equal(t, editplan.Replace, p.Outcome, p.Notes)
	require.Equal(t, []string{"cp-c"}, p.Replaced)
	require.Contains(t, p.Notes, "Machine cp-c is outdated: KubeadmConfig cp-c differs in spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraArgs")
}

func TestPlan_KubeadmControlPlaneNamesAnUnhealthyEtcdMember(t *testing.T) {
	kcp := controlPlane(t, 1)
	m := &clusterv1.Machine{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: kcp.GetNamespace(), Name: "cp-b"}, m))
	envtest.UpdateStatus(t, env.Client, m, func() {
		m.Status.Conditions = []metav1.Condition{ctltest.Condition("EtcdMemberHealthy", metav1.ConditionFalse, "MemberUnhealthy", "alarm NOSPACE", 0)}
	})
	file := kcpEditFile(t, kcp, func(spec map[string]any) { set(t, spec, int64(5), "replicas") })
	p := planJSON(t, file).Objects[0]
	require.Equal(t, editplan.Scale, p.Outcome)
	require.Equal(t, 2, p.Added)
	require.Equal(t, 5, p.Steps[1].EtcdMembers)
	require.Contains(t, p.Notes, "the etcd member of Machine cp-b is not healthy now (MemberUnhealthy: alarm NOSPACE): the controller takes no step while it is not")
}
