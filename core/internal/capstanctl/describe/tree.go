package describe

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Roles of the nodes that place an object in the Cluster (ClusterInfrastructure,
// ControlPlane) or group objects without being one (Workers, and ControlPlane for
// a Cluster without controlPlaneRef).
const (
	RoleClusterInfrastructure = "ClusterInfrastructure"
	RoleControlPlane          = "ControlPlane"
	RoleWorkers               = "Workers"
	RoleClusterResourceSets   = "ClusterResourceSets"
)

// Objects is everything Build needs, as Read fetched it.
type Objects struct {
	Cluster *clusterv1.Cluster
	// Infrastructure and ControlPlane are nil when the Cluster has no such reference.
	Infrastructure     *External
	ControlPlane       *External
	MachineDeployments []clusterv1.MachineDeployment
	MachinePools       []clusterv1.MachinePool
	// Machines are all Machines of the Cluster; Build sorts them into the tree.
	Machines []clusterv1.Machine
	// ClusterResourceSets bound to the Cluster, shown when set (--show-resourcesets).
	ClusterResourceSets []addonsv1.ClusterResourceSet
}

// External is a provider object a Cluster references.
type External struct {
	Ref clusterv1.ContractVersionedObjectReference
	// Object is nil when it could not be read; Err then says why, in words a user
	// can act on (e.g. the provider's CRD is not installed).
	Object *unstructured.Unstructured
	Err    string
}

// Node is one row of the tree, and one element of the -o yaml|json output.
type Node struct {
	// Role is set on nodes that stand for a part of the Cluster rather than for
	// their kind: ClusterInfrastructure, ControlPlane, Workers.
	Role      string `json:"role,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// ReadyCondition is the condition READY was taken from: Ready, or Available for
	// objects without a Ready condition.
	ReadyCondition string                 `json:"readyCondition,omitempty"`
	Ready          metav1.ConditionStatus `json:"ready,omitempty"`
	Reason         string                 `json:"reason,omitempty"`
	// Since is the lastTransitionTime of ReadyCondition (RFC 3339).
	Since   *metav1.Time `json:"since,omitempty"`
	Message string       `json:"message,omitempty"`
	// Deleting is true once the object has a deletionTimestamp.
	Deleting bool `json:"deleting,omitempty"`
	// GroupedNames are the Machines a grouped row stands for; Name is then empty.
	GroupedNames []string `json:"groupedNames,omitempty"`
	// Conditions are all the object's conditions, set only when --show-conditions
	// selects the object.
	Conditions []Condition `json:"conditions,omitempty"`
	// Topology is set on a Cluster built from a ClusterClass.
	Topology *Topology `json:"topology,omitempty"`
	Children []*Node   `json:"children,omitempty"`
}

// Topology is what a topology Cluster is built from.
type Topology struct {
	// Class is the ClusterClass, namespace/name.
	Class string `json:"class"`
	// Version is spec.topology.version, the Kubernetes version the topology rolls out.
	Version string `json:"version,omitempty"`
	// ControlPlaneUpgradePlan and WorkersUpgradePlan are the versions still to run during an
	// upgrade (status.controlPlane.upgradePlan, status.workers.upgradePlan).
	ControlPlaneUpgradePlan []string `json:"controlPlaneUpgradePlan,omitempty"`
	WorkersUpgradePlan      []string `json:"workersUpgradePlan,omitempty"`
}

// Condition is one condition shown with --show-conditions.
type Condition struct {
	Type    string                 `json:"type"`
	Status  metav1.ConditionStatus `json:"status"`
	Reason  string                 `json:"reason,omitempty"`
	Since   *metav1.Time           `json:"since,omitempty"`
	Message string                 `json:"message,omitempty"`
}

// Options tune Build.
type Options struct {
	// Grouping collapses sibling Machines in the same state into one node.
	Grouping bool
	// ShowConditions selects the objects whose conditions are listed.
	ShowConditions ConditionFilter
}

// ConditionFilter selects objects by kind, or kind and name; the zero value
// selects nothing.
type ConditionFilter struct {
	all     bool
	kinds   map[string]bool // lower-cased kind
	objects map[string]bool // lower-cased kind + "/" + name
}

// ParseConditionFilter parses --show-conditions: "", "all", or a comma-separated
// list of Kind or Kind/name (kinds case-insensitive), e.g. "Cluster,Machine/md-0-abc".
func ParseConditionFilter(s string) (ConditionFilter, error) {
	f := ConditionFilter{kinds: map[string]bool{}, objects: map[string]bool{}}
	s = strings.TrimSpace(s)
	if s == "" {
		return f, nil
	}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if strings.EqualFold(item, "all") {
			f.all = true
			continue
		}
		kind, name, hasName := strings.Cut(item, "/")
		if kind == "" || (hasName && (name == "" || strings.Contains(name, "/"))) {
			return ConditionFilter{}, fmt.Errorf("--show-conditions %q: each entry must be all, a Kind or Kind/name, e.g. --show-conditions Cluster,Machine", s)
		}
		if hasName {
			f.objects[strings.ToLower(kind)+"/"+name] = true
		} else {
			f.kinds[strings.ToLower(kind)] = true
		}
	}
	return f, nil
}

// Matches reports whether the object's conditions should be shown.
func (f ConditionFilter) Matches(kind, name string) bool {
	if f.all {
		return true
	}
	k := strings.ToLower(kind)
	return f.kinds[k] || f.objects[k+"/"+name]
}

// Build arranges the objects into the tree described in the package doc. It is
// pure: the same objects and options always give the same tree.
func Build(objs Objects, opts Options) *Node {
	c := objs.Cluster
	root := typedNode("Cluster", c, c.Status.Conditions, opts)
	if t := c.Spec.Topology; t.IsDefined() {
		ns := t.ClassRef.Namespace
		if ns == "" {
			ns = c.Namespace
		}
		root.Topology = &Topology{Class: ns + "/" + t.ClassRef.Name, Version: t.Version}
		if cp := c.Status.ControlPlane; cp != nil {
			root.Topology.ControlPlaneUpgradePlan = cp.UpgradePlan
		}
		if w := c.Status.Workers; w != nil {
			root.Topology.WorkersUpgradePlan = w.UpgradePlan
		}
	}

	var cpMachines, others []clusterv1.Machine
	for _, m := range sortedByName(objs.Machines) {
		if _, ok := m.Labels[clusterv1.MachineControlPlaneLabel]; ok {
			cpMachines = append(cpMachines, m)
		} else {
			others = append(others, m)
		}
	}

	if objs.Infrastructure != nil {
		root.Children = append(root.Children, externalNode(RoleClusterInfrastructure, c.Namespace, objs.Infrastructure, opts))
	}
	if len(objs.ClusterResourceSets) > 0 {
		sets := &Node{Role: RoleClusterResourceSets}
		for _, crs := range sortedByName(objs.ClusterResourceSets) {
			sets.Children = append(sets.Children, typedNode("ClusterResourceSet", &crs, crs.Status.Conditions, opts))
		}
		root.Children = append(root.Children, sets)
	}
	switch {
	case objs.ControlPlane != nil:
		cp := externalNode(RoleControlPlane, c.Namespace, objs.ControlPlane, opts)
		cp.Children = machineNodes(cpMachines, opts)
		root.Children = append(root.Children, cp)
	case len(cpMachines) > 0: // control plane Machines managed without a control plane provider
		root.Children = append(root.Children, &Node{Role: RoleControlPlane, Children: machineNodes(cpMachines, opts)})
	}

	workers := &Node{Role: RoleWorkers}
	claimed := map[string]bool{}
	for _, md := range sortedByName(objs.MachineDeployments) {
		n := typedNode("MachineDeployment", &md, md.Status.Conditions, opts)
		var own []clusterv1.Machine
		for _, m := range others {
			if m.Labels[clusterv1.MachineDeploymentNameLabel] == md.Name {
				own = append(own, m)
				claimed[m.Name] = true
			}
		}
		n.Children = machineNodes(own, opts)
		workers.Children = append(workers.Children, n)
	}
	for _, mp := range sortedByName(objs.MachinePools) {
		n := typedNode("MachinePool", &mp, mp.Status.Conditions, opts)
		var own []clusterv1.Machine
		for _, m := range others {
			if !claimed[m.Name] && ownedByPool(m, mp.Name) {
				own = append(own, m)
				claimed[m.Name] = true
			}
		}
		n.Children = machineNodes(own, opts)
		workers.Children = append(workers.Children, n)
	}
	var loose []clusterv1.Machine
	for _, m := range others {
		if !claimed[m.Name] {
			loose = append(loose, m)
		}
	}
	workers.Children = append(workers.Children, machineNodes(loose, opts)...)
	if len(workers.Children) > 0 {
		root.Children = append(root.Children, workers)
	}
	return root
}

// ownedByPool: the pool-name label holds the pool's name (a hash for names over
// 63 characters, which the owner reference then identifies).
func ownedByPool(m clusterv1.Machine, pool string) bool {
	if m.Labels[clusterv1.MachinePoolNameLabel] == pool {
		return true
	}
	for _, ref := range m.OwnerReferences {
		if ref.Kind == "MachinePool" && ref.Name == pool {
			return true
		}
	}
	return false
}

func machineNodes(machines []clusterv1.Machine, opts Options) []*Node {
	nodes := make([]*Node, 0, len(machines))
	for _, m := range machines {
		nodes = append(nodes, typedNode("Machine", &m, m.Status.Conditions, opts))
	}
	if opts.Grouping {
		nodes = group(nodes)
	}
	return nodes
}

func typedNode(kind string, obj metav1.Object, conds []metav1.Condition, opts Options) *Node {
	n := &Node{Kind: kind, Name: obj.GetName(), Namespace: obj.GetNamespace(), Deleting: obj.GetDeletionTimestamp() != nil}
	setStatus(n, conds, opts)
	return n
}

func externalNode(role, namespace string, ext *External, opts Options) *Node {
	n := &Node{Role: role, Kind: ext.Ref.Kind, Name: ext.Ref.Name, Namespace: namespace}
	if ext.Object == nil {
		n.Message = ext.Err
		return n
	}
	n.Deleting = ext.Object.GetDeletionTimestamp() != nil
	conds, err := unstructuredConditions(ext.Object)
	if err != nil {
		n.Message = err.Error()
		return n
	}
	setStatus(n, conds, opts)
	return n
}

// setStatus fills the READY columns from Ready, else Available, else (for
// ClusterResourceSets) ResourcesApplied, and the shown conditions.
func setStatus(n *Node, conds []metav1.Condition, opts Options) {
	for _, t := range []string{clusterv1.ReadyCondition, clusterv1.AvailableCondition, addonsv1.ClusterResourceSetResourcesAppliedCondition} {
		if c := meta.FindStatusCondition(conds, t); c != nil {
			n.ReadyCondition, n.Ready, n.Reason, n.Message = c.Type, c.Status, c.Reason, c.Message
			if !c.LastTransitionTime.IsZero() {
				n.Since = c.LastTransitionTime.DeepCopy()
			}
			break
		}
	}
	if !opts.ShowConditions.Matches(n.Kind, n.Name) {
		return
	}
	shown := make([]Condition, 0, len(conds))
	for _, c := range conds {
		sc := Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}
		if !c.LastTransitionTime.IsZero() {
			sc.Since = c.LastTransitionTime.DeepCopy()
		}
		shown = append(shown, sc)
	}
	slices.SortFunc(shown, func(a, b Condition) int { return strings.Compare(a.Type, b.Type) })
	n.Conditions = shown
}

// unstructuredConditions reads status.conditions of a provider object.
func unstructuredConditions(u *unstructured.Unstructured) ([]metav1.Condition, error) {
	raw, found, err := unstructured.NestedSlice(u.Object, "status", "conditions")
	if err != nil || !found {
		if err != nil {
			return nil, fmt.Errorf("cannot read status.conditions of %s %s: %w", u.GetKind(), u.GetName(), err)
		}
		return nil, nil
	}
	out := make([]metav1.Condition, 0, len(raw))
	for i, item := range raw {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("cannot read status.conditions[%d] of %s %s: not an object", i, u.GetKind(), u.GetName())
		}
		var c metav1.Condition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c); err != nil {
			return nil, fmt.Errorf("cannot read status.conditions[%d] of %s %s: %w", i, u.GetKind(), u.GetName(), err)
		}
		out = append(out, c)
	}
	return out, nil
}

// group collapses Machines in the same state (see the package doc). A group sits
// where its first member (by name) was.
func group(nodes []*Node) []*Node {
	key := func(n *Node) string {
		return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%t", n.ReadyCondition, n.Ready, n.Reason, n.Message, n.Deleting)
	}
	members := map[string][]*Node{}
	for _, n := range nodes {
		if n.Conditions == nil {
			members[key(n)] = append(members[key(n)], n)
		}
	}
	out := make([]*Node, 0, len(nodes))
	emitted := map[string]bool{}
	for _, n := range nodes {
		k := key(n)
		same := members[k]
		if n.Conditions != nil || len(same) < 2 {
			out = append(out, n)
			continue
		}
		if emitted[k] {
			continue
		}
		emitted[k] = true
		g := &Node{Kind: n.Kind, Namespace: n.Namespace, ReadyCondition: n.ReadyCondition, Ready: n.Ready,
			Reason: n.Reason, Message: n.Message, Deleting: n.Deleting}
		for _, m := range same {
			g.GroupedNames = append(g.GroupedNames, m.Name)
			if m.Since != nil && (g.Since == nil || m.Since.After(g.Since.Time)) {
				g.Since = m.Since.DeepCopy()
			}
		}
		out = append(out, g)
	}
	return out
}

// named is what sortedByName needs; the core types' pointer receivers satisfy it.
type named interface{ GetName() string }

func sortedByName[T any, P interface {
	*T
	named
}](items []T) []T {
	out := slices.Clone(items)
	slices.SortFunc(out, func(a, b T) int { return strings.Compare(P(&a).GetName(), P(&b).GetName()) })
	return out
}
