package topologyplan

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/core/internal/topology/clusterstate"
	"capstan.dev/core/internal/topology/desired"
)

// planned is a desired object and whether it is a template copy (rotated, never edited).
type planned struct {
	obj      *unstructured.Unstructured
	template bool
}

// desiredObjects lists the desired state's objects in the order the controller applies them,
// with the references between them set as the controller sets them; an object held while its
// upgrade is pending is left out, as the controller leaves it (its health check is not), and so
// is a new worker whose creation waits for the control plane.
func desiredObjects(s *desired.State, cpContract contract.ContractVersion, held clusterstate.Held) ([]planned, error) {
	out := []planned{{obj: s.InfrastructureCluster}}
	if cpm := s.ControlPlaneMachineInfrastructure; cpm != nil && !held.ControlPlane() {
		out = append(out, planned{obj: cpm, template: true})
		ref := contract.ObjectReference{APIGroup: cpm.GroupVersionKind().Group, Kind: cpm.GetKind(), Name: cpm.GetName(), APIVersion: cpm.GetAPIVersion()}
		if err := contract.ControlPlane().MachineTemplateInfrastructureRef(cpContract).Set(s.ControlPlane, ref); err != nil {
			return nil, fmt.Errorf("pointing ControlPlane %s at %s: %w", s.ControlPlane.GetName(), cpm.GetName(), err)
		}
	}
	if !held.ControlPlane() {
		out = append(out, planned{obj: s.ControlPlane})
	}
	if s.ControlPlaneHealthCheck != nil {
		mhc, err := clusterstate.Intent(s.ControlPlaneHealthCheck)
		if err != nil {
			return nil, err
		}
		out = append(out, planned{obj: mhc})
	}
	for i := range s.MachineDeployments {
		md := &s.MachineDeployments[i]
		if held.MachineDeploymentCreateDeferred(md.TopologyName) {
			continue
		}
		if !held.MachineDeployment(md.TopologyName) {
			out = append(out, planned{obj: md.Bootstrap, template: true}, planned{obj: md.Infrastructure, template: true})
			spec := &md.Object.Spec.Template.Spec
			spec.Bootstrap.ConfigRef.Name = md.Bootstrap.GetName()
			spec.InfrastructureRef.Name = md.Infrastructure.GetName()
			obj, err := clusterstate.Intent(md.Object)
			if err != nil {
				return nil, err
			}
			out = append(out, planned{obj: obj})
		}
		if md.HealthCheck != nil {
			mhc, err := clusterstate.Intent(md.HealthCheck)
			if err != nil {
				return nil, err
			}
			out = append(out, planned{obj: mhc})
		}
	}
	for i := range s.MachinePools {
		mp := &s.MachinePools[i]
		if held.MachinePool(mp.TopologyName) || held.MachinePoolCreateDeferred(mp.TopologyName) {
			continue
		}
		// The pool's BootstrapConfig and InfraMachinePool are objects, updated in place.
		obj, err := clusterstate.Intent(mp.Object)
		if err != nil {
			return nil, err
		}
		out = append(out, planned{obj: mp.Bootstrap}, planned{obj: mp.Infrastructure}, planned{obj: obj})
	}
	return out, nil
}

// compare returns what applying p would do: create, change (with a diff), or nothing (nil).
func compare(ctx context.Context, c client.Client, p planned) (*ObjectChange, error) {
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(p.obj.GroupVersionKind())
	err := c.Get(ctx, client.ObjectKeyFromObject(p.obj), cur)
	if apierrors.IsNotFound(err) {
		return &ObjectChange{Action: Create, Object: p.obj}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", p.obj.GetKind(), p.obj.GetName(), err)
	}
	dry, err := clusterstate.DryRunApply(ctx, c, p.obj)
	if p.template && apierrors.IsInvalid(err) {
		// A kind whose template spec is immutable refuses even the dry run of a change, and the
		// controller rotates it: the diff is against the intent, without the server's defaults.
		dry, err = cur.DeepCopy(), nil
		dry.Object["spec"] = p.obj.Object["spec"]
	}
	if err != nil {
		return nil, err
	}
	specChanged := clusterstate.SpecDiffers(dry, cur)
	if !specChanged && !clusterstate.MetadataDiffers(dry, cur) {
		return nil, nil
	}
	d, err := diff(cur, dry)
	if err != nil {
		return nil, err
	}
	ch := &ObjectChange{Action: Change, Object: dry, Diff: d}
	if p.template && specChanged {
		ch.Note = "template rotation: the changed copy is created under a new name, its user repointed, and this copy deleted once no MachineSet uses it"
	}
	return ch, nil
}

// deletions lists the objects the controller would delete: the MachineDeployments (with their
// health checks) and MachinePools of removed topology entries, and health checks no longer enabled.
func deletions(ctx context.Context, c client.Client, cl *clusterv1.Cluster, s *desired.State, cur *clusterstate.Current) ([]ObjectChange, error) {
	keep := map[string]bool{}
	var mhcs []string // health checks that would be deleted: by name
	for _, md := range s.MachineDeployments {
		keep[md.TopologyName] = true
		if md.HealthCheck == nil {
			mhcs = append(mhcs, md.Object.Name)
		}
	}
	if s.ControlPlaneHealthCheck == nil {
		mhcs = append(mhcs, s.ControlPlane.GetName())
	}
	var mds []string
	for name, md := range cur.MachineDeployments {
		if !keep[name] {
			mhcs = append(mhcs, md.Name)
			mds = append(mds, md.Name)
		}
	}
	keepPools := map[string]bool{}
	for _, mp := range s.MachinePools {
		keepPools[mp.TopologyName] = true
	}
	var mps []string
	for name, mp := range cur.MachinePools {
		if !keepPools[name] {
			mps = append(mps, mp.Name)
		}
	}
	sort.Strings(mds)
	sort.Strings(mhcs)
	sort.Strings(mps)
	var out []ObjectChange
	for _, o := range slices.Concat(kindNames("MachineHealthCheck", mhcs), kindNames("MachineDeployment", mds), kindNames("MachinePool", mps)) {
		ch, err := deletion(ctx, c, cl, o[0], o[1])
		if err != nil {
			return nil, err
		}
		if ch != nil {
			out = append(out, *ch)
		}
	}
	return out, nil
}

func kindNames(kind string, names []string) [][2]string {
	out := make([][2]string, 0, len(names))
	for _, n := range names {
		out = append(out, [2]string{kind, n})
	}
	return out
}

// deletion is the deletion of the core object kind/name if it exists and the topology generated it for cl.
func deletion(ctx context.Context, c client.Client, cl *clusterv1.Cluster, kind, name string) (*ObjectChange, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(clusterv1.GroupVersion.WithKind(kind))
	err := c.Get(ctx, client.ObjectKey{Namespace: cl.Namespace, Name: name}, u)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", kind, name, err)
	}
	l := u.GetLabels()
	if _, owned := l[clusterv1.ClusterTopologyOwnedLabel]; !owned || l[clusterv1.ClusterNameLabel] != cl.Name || !u.GetDeletionTimestamp().IsZero() {
		return nil, nil
	}
	return &ObjectChange{Action: Delete, Object: u}, nil
}

// diff is a unified diff of what the topology writes of a and b: labels, annotations, owner
// references and spec, as YAML.
func diff(a, b *unstructured.Unstructured) (string, error) {
	ya, err := yaml.Marshal(written(a))
	if err != nil {
		return "", err
	}
	yb, err := yaml.Marshal(written(b))
	if err != nil {
		return "", err
	}
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(ya)), B: difflib.SplitLines(string(yb)),
		FromFile: "current", ToFile: "desired", Context: 3,
	})
}

func written(u *unstructured.Unstructured) map[string]any {
	meta := map[string]any{}
	if l := u.GetLabels(); len(l) > 0 {
		meta["labels"] = l
	}
	if a := u.GetAnnotations(); len(a) > 0 {
		meta["annotations"] = a
	}
	if o, ok, _ := unstructured.NestedSlice(u.Object, "metadata", "ownerReferences"); ok {
		meta["ownerReferences"] = o
	}
	return map[string]any{"metadata": meta, "spec": u.Object["spec"]}
}

// Summary counts the changes by action, e.g. "2 to create, 1 to change, 0 to delete".
func Summary(changes []ObjectChange) string {
	n := map[Action]int{}
	for _, ch := range changes {
		n[ch.Action]++
	}
	return strings.Join([]string{
		fmt.Sprintf("%d to create", n[Create]), fmt.Sprintf("%d to change", n[Change]), fmt.Sprintf("%d to delete", n[Delete]),
	}, ", ")
}
