package cluster

import (
	"context"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// descendants are the core objects that belong to a Cluster (by label).
type descendants struct {
	machinePools         []clusterv1.MachinePool
	machineDeployments   []clusterv1.MachineDeployment
	machineSets          []clusterv1.MachineSet
	workerMachines       []clusterv1.Machine
	controlPlaneMachines []clusterv1.Machine
}

// listDescendants lists them from the cache without its deep copy: the Cluster only counts
// and names its descendants and deletes the tops of their chains (a Delete does not write
// into the object), and copying every Machine of a large Cluster on each of its reconciles
// dominated the core's allocations in the benchmark (docs/benchmarks.md). The result shares
// the cache's objects: never modify them.
func listDescendants(ctx context.Context, c client.Client, cluster *clusterv1.Cluster) (descendants, error) {
	var d descendants
	opts := []client.ListOption{client.InNamespace(cluster.Namespace), client.UnsafeDisableDeepCopy,
		client.MatchingLabels{clusterv1.ClusterNameLabel: cluster.Name}}
	pools := &clusterv1.MachinePoolList{}
	mds := &clusterv1.MachineDeploymentList{}
	mss := &clusterv1.MachineSetList{}
	machines := &clusterv1.MachineList{}
	for _, l := range []client.ObjectList{pools, mds, mss, machines} {
		if err := c.List(ctx, l, opts...); err != nil {
			return d, fmt.Errorf("listing descendants of Cluster %s: %w", cluster.Name, err)
		}
	}
	d.machinePools, d.machineDeployments, d.machineSets = pools.Items, mds.Items, mss.Items
	for _, m := range machines.Items {
		if _, cp := m.Labels[clusterv1.MachineControlPlaneLabel]; cp {
			d.controlPlaneMachines = append(d.controlPlaneMachines, m)
		} else {
			d.workerMachines = append(d.workerMachines, m)
		}
	}
	return d, nil
}

// toDelete returns the descendants the Cluster deletes itself: the top of each
// ownership chain (MachineSets of a MachineDeployment and Machines of a MachineSet
// are deleted by their owners), and control-plane Machines only when no
// control-plane provider manages them.
func (d descendants) toDelete(withControlPlaneProvider bool) []client.Object {
	var out []client.Object
	for i := range d.machinePools {
		out = append(out, &d.machinePools[i])
	}
	for i := range d.machineDeployments {
		out = append(out, &d.machineDeployments[i])
	}
	for i := range d.machineSets {
		if !ownedBy(&d.machineSets[i], "MachineDeployment") {
			out = append(out, &d.machineSets[i])
		}
	}
	machines := d.workerMachines
	if !withControlPlaneProvider {
		machines = append(append([]clusterv1.Machine{}, machines...), d.controlPlaneMachines...)
	}
	for i := range machines {
		if !ownedBy(&machines[i], "MachineSet") && !ownedBy(&machines[i], "MachinePool") {
			out = append(out, &machines[i])
		}
	}
	return out
}

// remaining describes what still exists, for the Deleting condition, e.g.
// "MachineDeployments md-1; Machines m-1, m-2, m-3, ... (5 in all)".
func (d descendants) remaining(withControlPlaneProvider bool) string {
	var parts []string
	add := func(kind string, names []string) {
		if len(names) == 0 {
			return
		}
		sort.Strings(names)
		total := len(names)
		if total > 3 {
			names = append(names[:3], fmt.Sprintf("... (%d in all)", total))
		}
		parts = append(parts, kind+" "+strings.Join(names, ", "))
	}
	var names []string
	for _, p := range d.machinePools {
		names = append(names, p.Name)
	}
	add("MachinePools", names)
	names = nil
	for _, md := range d.machineDeployments {
		names = append(names, md.Name)
	}
	add("MachineDeployments", names)
	names = nil
	for _, ms := range d.machineSets {
		names = append(names, ms.Name)
	}
	add("MachineSets", names)
	names = nil
	for _, m := range d.workerMachines {
		names = append(names, m.Name)
	}
	if !withControlPlaneProvider {
		for _, m := range d.controlPlaneMachines {
			names = append(names, m.Name)
		}
	}
	add("Machines", names)
	return strings.Join(parts, "; ")
}

func ownedBy(obj metav1.Object, kind string) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.Kind == kind {
			return true
		}
	}
	return false
}
