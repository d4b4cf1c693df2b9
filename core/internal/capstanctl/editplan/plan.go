package editplan

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/capstanctl/topologyplan"
)

// kubeadmControlPlaneGroup is the API group of the KubeadmControlPlane, planned by kind: its Go
// types belong to the bootstrap-kubeadm module.
const kubeadmControlPlaneGroup = "controlplane.cluster.x-k8s.io"

// Document is one object of the -f files and where it came from ("md.yaml, object 2").
type Document struct {
	Source string
	Object *unstructured.Unstructured
}

// Outcome is what applying one edited object does to its Machines.
type Outcome string

const (
	// Replace: Machines are replaced by new ones (a rollout).
	Replace Outcome = "replace"
	// InPlace: the edit changes existing Machines in place, or nothing at all; none is replaced.
	InPlace Outcome = "in-place"
	// Scale: Machines are added or removed, none is replaced.
	Scale Outcome = "scale"
	// Create: the object does not exist yet; applying it creates it.
	Create Outcome = "create"
)

// Step is one step of a rollout or scaling: what happens once the Machines the previous step
// created are available.
type Step struct {
	// Create is how many new Machines are created.
	Create int `json:"create,omitempty"`
	// Surge is how many of those are created before an old one is deleted (above spec.replicas).
	Surge int `json:"surge,omitempty"`
	// Delete are the Machines deleted, in order.
	Delete []string `json:"delete,omitempty"`
	// EtcdMembers is how many etcd members a KubeadmControlPlane with stacked etcd has after
	// the step, and EtcdQuorum how many of them must agree.
	EtcdMembers int `json:"etcdMembers,omitempty"`
	EtcdQuorum  int `json:"etcdQuorum,omitempty"`
}

// ObjectPlan is the plan of one edited object.
type ObjectPlan struct {
	Source  string  `json:"source"`
	Kind    string  `json:"kind"`
	Object  string  `json:"object"`
	Outcome Outcome `json:"outcome"`
	// Strategy is the MachineDeployment's rollout strategy and its resolved limits.
	Strategy string `json:"strategy,omitempty"`
	// Replaced are the Machines replaced, in the order they are deleted.
	Replaced []string `json:"replaced,omitempty"`
	// Removed are the Machines a scale down deletes, in the MachineSet's deletion order.
	Removed []string `json:"removed,omitempty"`
	// Added is how many Machines a scale up creates.
	Added int `json:"added,omitempty"`
	// InPlace names the fields changed in place on the existing MachineSet and Machines.
	InPlace []string `json:"inPlace,omitempty"`
	Steps   []Step   `json:"steps,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// DrainHolds says, by the name of a Machine replaced or removed, what will hold the drain
	// of its Node: Pods waited for, evicted later or skipped (by label or MachineDrainRule)
	// and evictions PodDisruptionBudgets refuse now. Machines without a Node, or whose drain
	// nothing holds, are not named.
	DrainHolds map[string][]string `json:"drainHolds,omitempty"`
}

// Deleted names the existing Machines the plan deletes, each once: the replaced ones, then the
// removed ones (with OnDelete a Machine may be both). A Machine the plan itself creates is
// left out: it has no name, and no Node to drain, yet.
func (p *ObjectPlan) Deleted() []string {
	seen := map[string]bool{newMachineName: true}
	var out []string
	for _, m := range append(append([]string{}, p.Replaced...), p.Removed...) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// Result is the plan of every document of the files.
type Result struct {
	Objects  []ObjectPlan               `json:"objects"`
	Topology []topologyplan.ClusterPlan `json:"topology,omitempty"`
}

// Replaces reports whether any Machine would be replaced.
func (r *Result) Replaces() bool {
	for _, p := range r.Objects {
		if p.Outcome == Replace {
			return true
		}
	}
	return false
}

// Plan plans every document, reading the objects as they are through c; now decides whether a
// spec.rollout.after has passed.
func Plan(ctx context.Context, c client.Client, docs []Document, now time.Time) (*Result, error) {
	res := &Result{}
	drains := newDrainReader(c, now)
	var topologyObjects []*unstructured.Unstructured
	var topologyClusters, supporting []string
	for _, d := range docs {
		u := d.Object
		if u.GetName() == "" {
			return nil, fmt.Errorf("%s (%s): metadata.name is empty", d.Source, u.GetKind())
		}
		gvk := u.GroupVersionKind()
		if planner := objectPlanner(gvk); planner != nil {
			p, err := planner(ctx, c, d, now)
			if err == nil {
				err = drains.addHolds(ctx, p, u.GetNamespace())
			}
			if err != nil {
				return nil, err
			}
			res.Objects = append(res.Objects, *p)
			continue
		}
		switch {
		case gvk == clusterv1.GroupVersion.WithKind("Cluster"):
			if _, ok, _ := unstructured.NestedMap(u.Object, "spec", "topology"); !ok {
				return nil, fmt.Errorf("%s: Cluster %s has no spec.topology: capstanctl plan plans topology Clusters only", d.Source, objectName(u))
			}
			topologyClusters = append(topologyClusters, objectName(u))
			topologyObjects = append(topologyObjects, u)
		case gvk == clusterv1.GroupVersion.WithKind("ClusterClass") || strings.HasSuffix(gvk.Kind, "Template"):
			// A class or template a topology Cluster of the files is planned with.
			supporting = append(supporting, d.Source)
			topologyObjects = append(topologyObjects, u)
		default:
			return nil, fmt.Errorf("%s: %s %s (%s) is not planned: capstanctl plan plans %s MachineDeployments, MachineSets and Clusters with spec.topology, and KubeadmControlPlanes",
				d.Source, gvk.Kind, objectName(u), u.GetAPIVersion(), clusterv1.GroupVersion)
		}
	}
	if len(supporting) > 0 && len(topologyClusters) == 0 {
		return nil, fmt.Errorf("%s: a ClusterClass or template is planned only with a topology Cluster that uses it: pass the Cluster too", supporting[0])
	}
	if len(topologyClusters) > 0 {
		plans, err := topologyplan.Plan(ctx, c, topologyObjects)
		if err != nil {
			return nil, err
		}
		res.Topology = plans
		if err := planTopologyMachineDeployments(ctx, c, drains, res, now); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// planTopologyMachineDeployments plans the MachineDeployments and KubeadmControlPlanes a topology
// plan changes as if they were edited by hand: the topology controller applies them, their
// controllers then roll them out the same way.
func planTopologyMachineDeployments(ctx context.Context, c client.Client, drains *drainReader, res *Result, now time.Time) error {
	for _, tp := range res.Topology {
		for _, ch := range tp.Changes {
			if ch.Action != topologyplan.Change {
				continue
			}
			d := Document{Source: "Cluster " + tp.Cluster + " (topology)", Object: ch.Object}
			planner := objectPlanner(ch.Object.GroupVersionKind())
			if planner == nil {
				continue
			}
			p, err := planner(ctx, c, d, now)
			if err == nil {
				err = drains.addHolds(ctx, p, ch.Object.GetNamespace())
			}
			if err != nil {
				return err
			}
			res.Objects = append(res.Objects, *p)
		}
	}
	return nil
}

// planner plans the edit of one object.
type planner func(ctx context.Context, c client.Client, d Document, now time.Time) (*ObjectPlan, error)

// objectPlanner is the planner of the objects of gvk that own Machines, nil for other kinds.
func objectPlanner(gvk schema.GroupVersionKind) planner {
	switch {
	case gvk == clusterv1.GroupVersion.WithKind("MachineDeployment"):
		return planMachineDeployment
	case gvk == clusterv1.GroupVersion.WithKind("MachineSet"):
		return func(ctx context.Context, c client.Client, d Document, _ time.Time) (*ObjectPlan, error) {
			return planMachineSet(ctx, c, d)
		}
	case gvk.Group == kubeadmControlPlaneGroup && gvk.Kind == "KubeadmControlPlane":
		return planKubeadmControlPlane
	}
	return nil
}

func objectName(u *unstructured.Unstructured) string {
	return u.GetNamespace() + "/" + u.GetName()
}
