package machineset

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

func TestParsePreflightChecks_AcceptsUpstreamsNamesAndRefusesOthers(t *testing.T) {
	got, err := ParsePreflightChecks([]string{"All"})
	require.NoError(t, err)
	require.True(t, got.Has(clusterv1.MachineSetPreflightCheckAll))
	got, err = ParsePreflightChecks([]string{""})
	require.NoError(t, err)
	require.Empty(t, got, "an empty flag value disables the checks")
	got, err = ParsePreflightChecks([]string{"KubeadmVersionSkew", " ControlPlaneIsStable"})
	require.NoError(t, err)
	require.Equal(t, sets.New(clusterv1.MachineSetPreflightCheckKubeadmVersionSkew, clusterv1.MachineSetPreflightCheckControlPlaneIsStable), got)
	_, err = ParsePreflightChecks([]string{"ControlPlaneHealthy"})
	require.EqualError(t, err, `unknown MachineSet preflight check "ControlPlaneHealthy": use All or any of ControlPlaneIsStable, KubernetesVersionSkew, KubeadmVersionSkew, ControlPlaneVersionSkew`)
}

func TestVersionSkewChecks_FollowUpstreamsPolicy(t *testing.T) {
	kubeadm := &clusterv1.MachineSet{Spec: clusterv1.MachineSetSpec{Template: clusterv1.MachineTemplateSpec{Spec: clusterv1.MachineSpec{
		Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: "bootstrap.cluster.x-k8s.io", Kind: "KubeadmConfigTemplate", Name: "t"}}}}}}
	other := &clusterv1.MachineSet{}
	cases := []struct {
		cp, ms                  string
		wantKubernetes, wantAdm bool // whether the check fails
	}{
		{cp: "v1.37.2", ms: "v1.37.0"},
		{cp: "v1.37.2", ms: "v1.38.0", wantKubernetes: true, wantAdm: true},
		{cp: "v1.37.2", ms: "v1.34.9", wantAdm: true},
		{cp: "v1.37.2", ms: "v1.33.0", wantKubernetes: true, wantAdm: true},
	}
	for _, tc := range cases {
		cp, err := contract.ParseKubernetesVersion(tc.cp)
		require.NoError(t, err)
		ms, err := contract.ParseKubernetesVersion(tc.ms)
		require.NoError(t, err)
		require.Equal(t, tc.wantKubernetes, kubernetesVersionSkewCheck(cp, ms) != "", "KubernetesVersionSkew cp %s ms %s", tc.cp, tc.ms)
		require.Equal(t, tc.wantAdm, kubeadmVersionSkewCheck(cp, ms, kubeadm) != "", "KubeadmVersionSkew cp %s ms %s", tc.cp, tc.ms)
		require.Empty(t, kubeadmVersionSkewCheck(cp, ms, other), "KubeadmVersionSkew applies to KubeadmConfigTemplates only")
	}
}

// TestTopologyChecks_FollowUpstream: for a Cluster with a managed topology, ControlPlaneIsStable
// fails while spec.topology.version is ahead of the control plane's spec.version (an upgrade is
// pending), and ControlPlaneVersionSkew while the MachineSet's version is not the control
// plane's; without a topology neither applies.
func TestTopologyChecks_FollowUpstream(t *testing.T) {
	cp := crds.New(crds.GenericControlPlaneGVK, "ns", "cp")
	require.NoError(t, unstructured.SetNestedField(cp.Object, "v1.37.2", "spec", "version"))
	require.NoError(t, unstructured.SetNestedField(cp.Object, "v1.37.2", "status", "version"))
	withTopology := func(version string) *clusterv1.Cluster {
		c := &clusterv1.Cluster{}
		c.Name = "c1"
		c.Spec.Topology = clusterv1.Topology{ClassRef: clusterv1.ClusterClassRef{Name: "quick-start"}, Version: version}
		return c
	}
	plain := &clusterv1.Cluster{}

	msg, err := controlPlaneStableCheck(cp, withTopology("v1.38.0"), "v1.37.2")
	require.NoError(t, err)
	require.Equal(t, `GenericControlPlane ns/cp has a pending version upgrade to v1.38.0 (spec.topology.version of Cluster c1) ("ControlPlaneIsStable" preflight check failed)`, msg)
	for _, c := range []*clusterv1.Cluster{withTopology("v1.37.2"), plain} {
		msg, err := controlPlaneStableCheck(cp, c, "v1.37.2")
		require.NoError(t, err)
		require.Empty(t, msg)
	}

	require.Equal(t, `MachineSet version (v1.36.4) is not yet the control plane version (v1.37.2): waiting for the topology to move the MachineSet to it ("ControlPlaneVersionSkew" preflight check failed)`,
		controlPlaneVersionSkewCheck(withTopology("v1.37.2"), "v1.37.2", "v1.36.4"))
	require.Empty(t, controlPlaneVersionSkewCheck(withTopology("v1.37.2"), "v1.37.2", "v1.37.2"))
	require.Empty(t, controlPlaneVersionSkewCheck(plain, "v1.37.2", "v1.36.4"), "without a topology the MachineSet's version is the user's")
}

// newPreflightFixture is a fixture whose Cluster has a GenericControlPlane at spec.version
// v1.37.2 and status.version statusVersion, with the controller running every check.
func newPreflightFixture(t *testing.T, statusVersion string) (*fixture, *unstructured.Unstructured) {
	t.Helper()
	f := newFixture(t, true)
	cp := crds.New(crds.GenericControlPlaneGVK, f.ns, "cp")
	require.NoError(t, unstructured.SetNestedField(cp.Object, "v1.37.2", "spec", "version"))
	require.NoError(t, env.Client.Create(f.ctx, cp))
	coretest.SetStatus(t, env, cp, map[string]any{"version": statusVersion})
	cluster := &clusterv1.Cluster{}
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: clusterName}, cluster))
	envtest.Update(t, env.Client, cluster, func() {
		cluster.Spec.ControlPlaneRef = clusterv1.ContractVersionedObjectReference{
			APIGroup: crds.GenericControlPlaneGVK.Group, Kind: crds.GenericControlPlaneGVK.Kind, Name: "cp"}
	})
	mgr := coretest.NewManager(t, env)
	coretest.IndexMachines(t, mgr)
	r := &Reconciler{Client: mgr.GetClient(), PreflightChecks: sets.New(clusterv1.MachineSetPreflightCheckAll)}
	require.NoError(t, r.SetupWithManager(f.ctx, mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	coretest.StartManager(t, mgr)
	return f, cp
}

// TestMachineSet_PreflightChecksHoldScaleUpWhileTheControlPlaneUpgrades: no Machine is created
// while the control plane's spec.version is ahead of its status.version, ScalingUp says which
// check holds it and how to skip it, and the Machines come once the upgrade is done.
func TestMachineSet_PreflightChecksHoldScaleUpWhileTheControlPlaneUpgrades(t *testing.T) {
	f, cp := newPreflightFixture(t, "v1.36.4")
	noMachines := env.Observe(t, &clusterv1.MachineList{}, f.ns, func(objs map[string]client.Object) error {
		if len(objs) > 0 {
			return errors.New("a Machine was created while the control plane was upgrading")
		}
		return nil
	})
	ms := f.newMachineSet("workers", "web", 2)
	require.NoError(t, env.Client.Create(f.ctx, ms))
	f.waitForCondition(ms, clusterv1.MachineSetScalingUpCondition, "True",
		`Scaling up from 0 to 2 replicas; waiting for preflight checks to pass: GenericControlPlane `+f.ns+`/cp is upgrading ("ControlPlaneIsStable" preflight check failed); `+
			`they are run again every 15s, or skip them with the annotation machineset.cluster.x-k8s.io/skip-preflight-checks`)
	noMachines()

	coretest.SetStatus(t, env, cp, map[string]any{"version": "v1.37.2"})
	f.waitForOwned(ms, 2)
}

// TestMachineSet_SkipAnnotationLetsAVersionSkewedMachineSetScaleUp: a MachineSet newer than
// its control plane is held by KubernetesVersionSkew until the skip annotation names it.
func TestMachineSet_SkipAnnotationLetsAVersionSkewedMachineSetScaleUp(t *testing.T) {
	f, _ := newPreflightFixture(t, "v1.37.2")
	ms := f.newMachineSet("newer", "web", 1)
	ms.Spec.Template.Spec.Version = "v1.38.0"
	require.NoError(t, env.Client.Create(f.ctx, ms))
	f.waitForCondition(ms, clusterv1.MachineSetScalingUpCondition, "True",
		`MachineSet version (1.38.0) is higher than the control plane version (1.37.2), which the Kubernetes version skew policy does not allow ("KubernetesVersionSkew" preflight check failed)`)
	require.Empty(t, f.ownedBy(ms))

	f.update(ms, func() {
		ms.Annotations = map[string]string{clusterv1.MachineSetSkipPreflightChecksAnnotation: "KubeadmVersionSkew, KubernetesVersionSkew"}
	})
	f.waitForOwned(ms, 1)
}
