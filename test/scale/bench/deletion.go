package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/test/scale/provider"
)

// deletion is scenario 5: the Cluster of scenario 2 and its templates are deleted;
// the time until no object of it is left, and the core's writes for it.
func (r *run) deletion(ctx context.Context) error {
	ns := machinesNamespace
	machines := &metav1.PartialObjectMetadataList{}
	machines.SetGroupVersionKind(clusterv1.GroupVersion.WithKind("MachineList"))
	if err := r.plane.harness.List(ctx, machines, client.InNamespace(ns)); err != nil {
		return err
	}
	r.logf("Deletion: deleting Cluster %s/%s (%d Machines) and its templates", ns, benchCluster, len(machines.Items))
	start, probeStart := time.Now(), r.probe(ctx)
	defer r.profileCPU(ctx, "deletion")()
	// As a user would: the Cluster (everything else follows it), and the worker
	// templates, which nothing owns (scenario 3's too, when it ran).
	rolled := newGeneric(crds.GenericInfrastructureMachineTemplateGVK)
	rolled.SetNamespace(ns)
	rolled.SetName(rolloutTemplate)
	for _, obj := range append(clusterObjects(ns), rolled) {
		switch obj.GetObjectKind().GroupVersionKind() {
		case crds.GenericInfrastructureClusterGVK, crds.GenericControlPlaneGVK:
			continue
		}
		if err := client.IgnoreNotFound(r.plane.harness.Delete(ctx, obj)); err != nil {
			return fmt.Errorf("deleting %T %s: %w", obj, obj.GetName(), err)
		}
	}
	err := r.waitFor(ctx, "no object of the Cluster left", func() (bool, string, error) {
		left, err := r.leftovers(ctx, ns)
		return len(left) == 0, "left: " + strings.Join(left, ", "), err
	})
	took, probeEnd := time.Since(start), r.probe(ctx)
	if err != nil {
		return err
	}
	last, err := r.audit.quietSince(5*time.Second, time.Minute, start, coreUsers...)
	if err != nil {
		return err
	}
	// The Nodes live in the workload cluster, which here is this API server: a real
	// one goes with its infrastructure. The core rightly leaves Nodes of a Cluster
	// being deleted alone, so the benchmark removes them, untimed.
	if err := r.plane.harness.DeleteAllOf(ctx, &corev1.Node{}, client.MatchingLabels{provider.NodeLabel: ns}); err != nil {
		return fmt.Errorf("deleting the Nodes of the deleted Cluster: %w", err)
	}
	scenario, n := r.cfg.title(ScenarioDeletion), max(len(machines.Items), 1)
	core, err := r.reportWrites(scenario, "deleted Machine", n, start, last.Add(time.Millisecond), took, false)
	if err != nil {
		return err
	}
	r.timedOutcome(ScenarioDeletion, "deleted Machine", n, took, core, probeStart, probeEnd)
	r.reportProbes(scenario, probeStart, probeEnd)
	return nil
}

// leftovers names the kinds that still have objects of the benchmark's Cluster in
// the management cluster.
func (r *run) leftovers(ctx context.Context, ns string) ([]string, error) {
	kinds := []schema.GroupVersionKind{
		clusterv1.GroupVersion.WithKind("Cluster"), clusterv1.GroupVersion.WithKind("MachineDeployment"),
		clusterv1.GroupVersion.WithKind("MachineSet"), clusterv1.GroupVersion.WithKind("Machine"),
		crds.GenericInfrastructureClusterGVK, crds.GenericControlPlaneGVK,
		crds.GenericInfrastructureMachineGVK, crds.GenericBootstrapConfigGVK,
		crds.GenericInfrastructureMachineTemplateGVK, crds.GenericBootstrapConfigTemplateGVK,
	}
	var left []string
	for _, gvk := range kinds {
		if n, err := r.count(ctx, gvk, client.InNamespace(ns)); err != nil || n {
			left = append(left, gvk.Kind)
			if err != nil {
				return left, err
			}
		}
	}
	// Without a garbage collector nothing deletes what the Cluster owns but nobody
	// deletes explicitly (its kubeconfig Secret): not counted then.
	if r.plane.gc != nil {
		if n, err := r.count(ctx, corev1.SchemeGroupVersion.WithKind("Secret"), client.InNamespace(ns),
			client.MatchingLabels{clusterv1.ClusterNameLabel: benchCluster}); err != nil || n {
			left = append(left, "Secret")
			return left, err
		}
	}
	return left, nil
}

// count reports whether any object of gvk matches opts, reading one name at most.
func (r *run) count(ctx context.Context, gvk schema.GroupVersionKind, opts ...client.ListOption) (bool, error) {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := r.plane.harness.List(ctx, list, append(opts, client.Limit(1))...); err != nil {
		return false, fmt.Errorf("listing %s: %w", gvk.Kind, err)
	}
	return len(list.Items) > 0, nil
}
