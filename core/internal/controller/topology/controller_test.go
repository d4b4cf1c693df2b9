package topology

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// quickStart creates a class (generic templates, an image variable patched into the workers'
// machine template, a worker health check), marks it reconciled, and returns it.
func quickStart(t *testing.T, ns string) *clusterv1.ClusterClass {
	t.Helper()
	return quickStartWithWorkers(t, ns, crds.GenericInfrastructureMachineTemplateGVK)
}

// quickStartWithWorkers is quickStart whose workers' machine template is of kind workerInfra.
func quickStartWithWorkers(t *testing.T, ns string, workerInfra schema.GroupVersionKind) *clusterv1.ClusterClass {
	t.Helper()
	newTemplate(t, crds.GenericInfrastructureClusterTemplateGVK, ns, "cluster", map[string]any{"network": "default"})
	newTemplate(t, crds.GenericControlPlaneTemplateGVK, ns, "cp", map[string]any{"format": "cloud-config"})
	newTemplate(t, crds.GenericInfrastructureMachineTemplateGVK, ns, "cp-machines", map[string]any{"image": "node:cp"})
	newTemplate(t, crds.GenericBootstrapConfigTemplateGVK, ns, "workers", map[string]any{})
	newTemplate(t, workerInfra, ns, "workers", map[string]any{})
	cc := &clusterv1.ClusterClass{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "quick-start"},
		Spec: clusterv1.ClusterClassSpec{
			Infrastructure: clusterv1.InfrastructureClass{TemplateRef: classRef(crds.GenericInfrastructureClusterTemplateGVK, "cluster")},
			ControlPlane: clusterv1.ControlPlaneClass{
				TemplateRef:           classRef(crds.GenericControlPlaneTemplateGVK, "cp"),
				MachineInfrastructure: clusterv1.ControlPlaneClassMachineInfrastructureTemplate{TemplateRef: classRef(crds.GenericInfrastructureMachineTemplateGVK, "cp-machines")},
			},
			Workers: clusterv1.WorkersClass{MachineDeployments: []clusterv1.MachineDeploymentClass{{
				Class:          "default-worker",
				Bootstrap:      clusterv1.WorkerClassBootstrapTemplate{TemplateRef: classRef(crds.GenericBootstrapConfigTemplateGVK, "workers")},
				Infrastructure: clusterv1.WorkerClassInfrastructureTemplate{TemplateRef: classRef(workerInfra, "workers")},
				HealthCheck: clusterv1.MachineDeploymentClassHealthCheck{Checks: clusterv1.HealthCheckChecks{
					UnhealthyNodeConditions: []clusterv1.UnhealthyNodeCondition{{Type: "Ready", Status: "False", TimeoutSeconds: ptr.To[int32](300)}}}},
			}}},
			Variables: []clusterv1.ClusterClassVariable{{Name: "image", Required: ptr.To(false),
				Schema: schemaOf(t, `{"type":"string","default":"node:v1"}`)}},
			Patches: []clusterv1.ClusterClassPatch{{Name: "worker-image", Definitions: []clusterv1.PatchDefinition{{
				Selector: clusterv1.PatchSelector{APIVersion: workerInfra.GroupVersion().String(), Kind: workerInfra.Kind,
					MatchResources: clusterv1.PatchSelectorMatch{MachineDeploymentClass: &clusterv1.PatchSelectorMatchClasses{Names: []string{"default-*"}}}},
				JSONPatches: []clusterv1.JSONPatch{{Op: "add", Path: "/spec/template/spec/image", ValueFrom: &clusterv1.JSONPatchValue{Variable: "image"}}},
			}}}},
		},
	}
	require.NoError(t, env.Client.Create(context.Background(), cc))
	markReconciled(t, cc)
	return cc
}

func topologyCluster(ns string) *clusterv1.Cluster {
	return &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns},
		Spec: clusterv1.ClusterSpec{Topology: clusterv1.Topology{
			ClassRef: clusterv1.ClusterClassRef{Name: "quick-start"}, Version: "v1.37.2",
			ControlPlane: clusterv1.ControlPlaneTopology{Replicas: ptr.To[int32](3)},
			Workers: clusterv1.WorkersTopology{MachineDeployments: []clusterv1.MachineDeploymentTopology{
				{Class: "default-worker", Name: "md-0", Replicas: ptr.To[int32](2)},
				{Class: "default-worker", Name: "md-1"},
			}},
		}},
	}
}

// machineDeployments returns the Cluster's topology MachineDeployments by topology name.
func machineDeployments(t *testing.T, c *clusterv1.Cluster) map[string]*clusterv1.MachineDeployment {
	t.Helper()
	list := &clusterv1.MachineDeploymentList{}
	require.NoError(t, env.Client.List(context.Background(), list, client.InNamespace(c.Namespace), ownedBy(c)))
	out := map[string]*clusterv1.MachineDeployment{}
	for i := range list.Items {
		out[list.Items[i].Labels[clusterv1.ClusterTopologyMachineDeploymentNameLabel]] = &list.Items[i]
	}
	return out
}

// TestTopology_GeneratesTheClusterFromItsClass: the controller (running with only its RBAC
// markers' rights) creates the InfraCluster, the ControlPlane with its machine template copy, a
// MachineDeployment with patched template copies and a health check per topology entry, and
// points the Cluster at them; a second reconcile writes nothing.
func TestTopology_GeneratesTheClusterFromItsClass(t *testing.T) {
	ns := env.CreateNamespace(t, "topology")
	calls := &envtest.CallCounter{Type: &clusterv1.Cluster{}, Key: client.ObjectKey{Namespace: ns, Name: "c1"}}
	applies := startController(t, env.UserFromRBACMarkers(t, "capstan-topology-rbac-test", "controller.go"), calls)
	quickStart(t, ns)
	c := topologyCluster(ns)
	require.NoError(t, env.Client.Create(t.Context(), c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.Equal(t, clusterv1.ClusterTopologyReconciledSucceededReason, conditionReason(got))

	require.Equal(t, crds.Ref(crds.GenericInfrastructureClusterGVK, "c1-n0001"), got.Spec.InfrastructureRef)
	require.Equal(t, crds.Ref(crds.GenericControlPlaneGVK, "c1-n0002"), got.Spec.ControlPlaneRef)
	ic := get(t, crds.GenericInfrastructureClusterGVK, ns, "c1-n0001")
	require.NotNil(t, ic)
	require.Equal(t, "default", nestedString(t, ic, "spec", "network"))
	require.Equal(t, got.UID, ic.GetOwnerReferences()[0].UID)
	cp := get(t, crds.GenericControlPlaneGVK, ns, "c1-n0002")
	require.NotNil(t, cp)
	require.Equal(t, "v1.37.2", nestedString(t, cp, "spec", "version"))
	cpMachines := nestedString(t, cp, "spec", "machineTemplate", "spec", "infrastructureRef", "name")
	require.Equal(t, "node:cp", nestedString(t, get(t, crds.GenericInfrastructureMachineTemplateGVK, ns, cpMachines), "spec", "template", "spec", "image"))

	mds := machineDeployments(t, got)
	require.Len(t, mds, 2)
	md0 := mds["md-0"]
	require.Equal(t, ptr.To[int32](2), md0.Spec.Replicas)
	require.Equal(t, "v1.37.2", md0.Spec.Template.Spec.Version)
	infra := get(t, crds.GenericInfrastructureMachineTemplateGVK, ns, md0.Spec.Template.Spec.InfrastructureRef.Name)
	require.Equal(t, "node:v1", nestedString(t, infra, "spec", "template", "spec", "image"), "the patch wrote the variable's default")
	require.NotNil(t, get(t, crds.GenericBootstrapConfigTemplateGVK, ns, md0.Spec.Template.Spec.Bootstrap.ConfigRef.Name))
	mhc := &clusterv1.MachineHealthCheck{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(md0), mhc))
	require.Equal(t, "md-0", mhc.Spec.Selector.MatchLabels[clusterv1.ClusterTopologyMachineDeploymentNameLabel])

	// Replicas the topology leaves unset belong to whoever sets them (an autoscaler, say).
	md1 := mds["md-1"]
	envtest.Update(t, env.Client, md1, func() { md1.Spec.Replicas = ptr.To[int32](4) })

	// Steady state: a reconcile (triggered by a label) changes no generated object.
	versions := func() map[string]string {
		out := map[string]string{"ic": get(t, crds.GenericInfrastructureClusterGVK, ns, "c1-n0001").GetResourceVersion(),
			"cp": get(t, crds.GenericControlPlaneGVK, ns, "c1-n0002").GetResourceVersion()}
		for name, md := range machineDeployments(t, got) {
			out[name] = md.ResourceVersion
		}
		return out
	}
	before := versions()
	appliedBefore := applies.Load()
	gets, _ := calls.Snapshot()
	envtest.Update(t, env.Client, got, func() { got.Labels = map[string]string{"touched": "yes"} })
	envtest.WaitFor(t, timeout, "a reconcile after the label change", func() (bool, error) {
		g, _ := calls.Snapshot()
		return g > gets, nil
	})
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.Equal(t, before, versions(), "steady state: nothing was written")
	require.Empty(t, applies.SinceIn(appliedBefore, ns), "steady state: only dry-run applies were sent")
	require.Equal(t, ptr.To[int32](4), machineDeployments(t, got)["md-1"].Spec.Replicas)
	cur, err := getCluster(c)
	require.NoError(t, err)
	require.Equal(t, got.ResourceVersion, cur.ResourceVersion, "steady state: the Cluster was not written")
}

func conditionReason(c *clusterv1.Cluster) string {
	for _, cond := range c.Status.Conditions {
		if cond.Type == clusterv1.ClusterTopologyReconciledCondition {
			return cond.Reason
		}
	}
	return ""
}

// TestTopology_RotatesTemplatesDeletesRemovedWorkersAndHonoursPause: a variable change that
// changes a worker's machine template creates a new copy under a new name, points the
// MachineDeployment at it and deletes the old one once no MachineSet uses it; removing a topology entry deletes its
// MachineDeployment and health check; a paused Cluster is not touched; a missing template is
// reported with the class path that references it.
func TestTopology_RotatesTemplatesDeletesRemovedWorkersAndHonoursPause(t *testing.T) {
	ns := env.CreateNamespace(t, "topology")
	calls := &envtest.CallCounter{Type: &clusterv1.Cluster{}, Key: client.ObjectKey{Namespace: ns, Name: "c1"}}
	startController(t, nil, calls)
	quickStart(t, ns)
	c := topologyCluster(ns)
	require.NoError(t, env.Client.Create(t.Context(), c))
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	md0 := machineDeployments(t, got)["md-0"]
	oldInfra, oldBootstrap := md0.Spec.Template.Spec.InfrastructureRef.Name, md0.Spec.Template.Spec.Bootstrap.ConfigRef.Name
	// Play the MachineDeployment controller: a MachineSet of md-0 uses the current copies.
	ms := &clusterv1.MachineSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: md0.Name + "-ms", Labels: md0.Spec.Template.Labels},
		Spec:       clusterv1.MachineSetSpec{ClusterName: "c1", Selector: md0.Spec.Selector, Template: md0.Spec.Template},
	}
	require.NoError(t, env.Client.Create(t.Context(), ms))

	envtest.Update(t, env.Client, got, func() {
		got.Spec.Topology.Variables = []clusterv1.ClusterVariable{{Name: "image", Value: js(`"node:v2"`)}}
	})
	envtest.WaitFor(t, timeout, "md-0 to reference a new infrastructure template", func() (bool, error) {
		md := machineDeployments(t, got)["md-0"]
		return md != nil && md.Spec.Template.Spec.InfrastructureRef.Name != oldInfra, nil
	})
	md0 = machineDeployments(t, got)["md-0"]
	newInfra := get(t, crds.GenericInfrastructureMachineTemplateGVK, ns, md0.Spec.Template.Spec.InfrastructureRef.Name)
	require.Equal(t, "node:v2", nestedString(t, newInfra, "spec", "template", "spec", "image"))
	require.Equal(t, oldBootstrap, md0.Spec.Template.Spec.Bootstrap.ConfigRef.Name, "an unchanged template keeps its copy")
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.NotNil(t, get(t, crds.GenericInfrastructureMachineTemplateGVK, ns, oldInfra), "a MachineSet still uses the replaced copy")
	require.NoError(t, env.Client.Delete(t.Context(), ms))
	envtest.WaitFor(t, timeout, "the replaced template copy to be deleted once its MachineSet is gone", func() (bool, error) {
		return get(t, crds.GenericInfrastructureMachineTemplateGVK, ns, oldInfra) == nil, nil
	})

	envtest.Update(t, env.Client, got, func() {
		got.Spec.Topology.Workers.MachineDeployments = got.Spec.Topology.Workers.MachineDeployments[:1]
	})
	envtest.WaitFor(t, timeout, "md-1 and its health check to be deleted", func() (bool, error) {
		list := &clusterv1.MachineHealthCheckList{}
		err := env.Client.List(t.Context(), list, client.InNamespace(ns))
		return len(machineDeployments(t, got)) == 1 && len(list.Items) == 1, err
	})

	stop := env.Observe(t, &clusterv1.MachineDeploymentList{}, ns, func(objs map[string]client.Object) error {
		for _, o := range objs {
			if r := o.(*clusterv1.MachineDeployment).Spec.Replicas; r != nil && *r == 5 {
				return fmt.Errorf("MachineDeployment %s was scaled while its Cluster is paused", o.GetName())
			}
		}
		return nil
	})
	gets, _ := calls.Snapshot()
	envtest.Update(t, env.Client, got, func() {
		got.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
		got.Spec.Topology.Workers.MachineDeployments[0].Replicas = ptr.To[int32](5)
	})
	envtest.WaitFor(t, timeout, "a reconcile of the paused Cluster", func() (bool, error) {
		g, _ := calls.Snapshot()
		return g > gets, nil
	})
	require.Equal(t, ptr.To[int32](2), machineDeployments(t, got)["md-0"].Spec.Replicas)
	stop()
	envtest.Update(t, env.Client, got, func() { delete(got.Annotations, clusterv1.PausedAnnotation) })
	envtest.WaitFor(t, timeout, "md-0 scaled once resumed", func() (bool, error) {
		r := machineDeployments(t, got)["md-0"].Spec.Replicas
		return r != nil && *r == 5, nil
	})

	require.NoError(t, env.Client.Delete(t.Context(), crds.New(crds.GenericBootstrapConfigTemplateGVK, ns, "workers")))
	envtest.Update(t, env.Client, got, func() { got.Labels = map[string]string{"seen": "again"} })
	waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionFalse,
		"reading GenericBootstrapConfigTemplate "+ns+"/workers (ClusterClass quick-start spec.workers.machineDeployments[default-worker].bootstrap.templateRef)")
}

// TestTopology_ReusesWhatItCreatedBeforeTheClusterPointedAtIt: the InfraCluster and ControlPlane
// a previous run created (its labels, the Cluster as owner) before it stopped, or before the
// Cluster's references reached the cache, are taken up: the Cluster is pointed at them and no
// second one is generated (it would be an orphan: a control plane nothing references).
func TestTopology_ReusesWhatItCreatedBeforeTheClusterPointedAtIt(t *testing.T) {
	ns := env.CreateNamespace(t, "topology")
	quickStart(t, ns)
	c := topologyCluster(ns)
	require.NoError(t, env.Client.Create(t.Context(), c))
	for gvk, name := range map[schema.GroupVersionKind]string{
		crds.GenericInfrastructureClusterGVK: "c1-earlier", crds.GenericControlPlaneGVK: "c1-earlier",
	} {
		u := crds.New(gvk, ns, name)
		u.SetLabels(map[string]string{clusterv1.ClusterNameLabel: c.Name, clusterv1.ClusterTopologyOwnedLabel: ""})
		u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: c.Name, UID: c.UID}})
		require.NoError(t, env.Client.Create(t.Context(), u))
	}
	startController(t, nil, nil)
	got := waitCondition(t, c, clusterv1.ClusterTopologyReconciledCondition, metav1.ConditionTrue, "")
	require.Equal(t, crds.Ref(crds.GenericInfrastructureClusterGVK, "c1-earlier"), got.Spec.InfrastructureRef)
	require.Equal(t, crds.Ref(crds.GenericControlPlaneGVK, "c1-earlier"), got.Spec.ControlPlaneRef)
	for _, gvk := range []schema.GroupVersionKind{crds.GenericInfrastructureClusterGVK, crds.GenericControlPlaneGVK} {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		require.NoError(t, env.Client.List(t.Context(), list, client.InNamespace(ns)))
		require.Len(t, list.Items, 1, "one %s", gvk.Kind)
	}
	require.Equal(t, "v1.37.2", nestedString(t, get(t, crds.GenericControlPlaneGVK, ns, "c1-earlier"), "spec", "version"), "the topology's intent applied to it")
}
