package topologyplan

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/topology/clusterstate"
	"capstan.dev/core/internal/topology/variables"
)

// Action is what the topology controller would do to an object.
type Action string

const (
	// Create: the object does not exist.
	Create Action = "create"
	// Change: the object exists and applying the desired state changes it.
	Change Action = "change"
	// Delete: the object exists and the topology no longer wants it.
	Delete Action = "delete"
)

// ObjectChange is one object the controller would create, change or delete.
type ObjectChange struct {
	Action Action `json:"action"`
	// Object is the desired object (create), what applying it would store (change), or the
	// existing object (delete).
	Object *unstructured.Unstructured `json:"object"`
	// Diff is a unified diff of the object's metadata and spec, current to desired (change).
	Diff string `json:"diff,omitempty"`
	// Note says more, e.g. that a template copy is rotated rather than edited.
	Note string `json:"note,omitempty"`
}

// ClusterPlan is the plan of one topology Cluster.
type ClusterPlan struct {
	// Cluster is namespace/name.
	Cluster string `json:"cluster"`
	// Class is the ClusterClass, namespace/name.
	Class   string `json:"class"`
	Version string `json:"version"`
	// Upgrade says, one entry per object, what an upgrade under way holds or rolls out.
	Upgrade []string       `json:"upgrade,omitempty"`
	Changes []ObjectChange `json:"changes"`
}

// Plan plans every topology Cluster among objs (the -f files, their namespaces already set),
// reading what the files do not hold through c from the management cluster. A Cluster whose
// topology its class refuses is an error naming each invalid field.
func Plan(ctx context.Context, c client.Client, objs []*unstructured.Unstructured) ([]ClusterPlan, error) {
	r := newOverlay(c, c.Scheme(), objs)
	var out []ClusterPlan
	for _, u := range objs {
		if u.GroupVersionKind() != clusterv1.GroupVersion.WithKind("Cluster") {
			continue
		}
		cl := &clusterv1.Cluster{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, cl, true); err != nil {
			return nil, fmt.Errorf("Cluster %s/%s: %w", u.GetNamespace(), u.GetName(), err)
		}
		if !cl.Spec.Topology.IsDefined() {
			continue
		}
		p, err := planCluster(ctx, c, r, cl)
		if err != nil {
			return nil, fmt.Errorf("Cluster %s/%s: %w", cl.Namespace, cl.Name, err)
		}
		out = append(out, *p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the files hold no Cluster with spec.topology (%s): pass the topology Cluster with -f", clusterv1.GroupVersion)
	}
	return out, nil
}

// planCluster computes cl's desired state as the controller does and compares it with what exists.
func planCluster(ctx context.Context, c client.Client, r client.Reader, cl *clusterv1.Cluster) (*ClusterPlan, error) {
	cl, err := admitted(ctx, c, cl)
	if err != nil {
		return nil, err
	}
	key := clusterstate.ClassKey(cl)
	cc := &clusterv1.ClusterClass{}
	if err := r.Get(ctx, key, cc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("ClusterClass %s (spec.topology.classRef) is neither in the files nor in the management cluster: pass its file with -f", key)
		}
		return nil, fmt.Errorf("reading ClusterClass %s: %w", key, err)
	}
	// The class's own schemas, so that a class from the files needs no ClusterClass controller;
	// but the published ones when they hold more (variables discovered from external patches).
	published := variables.StatusVariables(cc.Spec.Variables)
	if len(cc.Status.Variables) > len(published) {
		published = cc.Status.Variables
	}
	defs, err := variables.Definitions(published)
	if err != nil {
		return nil, fmt.Errorf("ClusterClass %s: %w", key, err)
	}
	if errs := clusterstate.Validate(ctx, cl, cc, defs); len(errs) > 0 {
		return nil, fmt.Errorf("invalid topology for ClusterClass %s: %w", key, errs.ToAggregate())
	}
	tpls, err := clusterstate.ReadTemplates(ctx, r, cc, cl)
	if err != nil {
		return nil, err
	}
	cur, err := clusterstate.ReadCurrent(ctx, r, cl, tpls)
	if err != nil {
		return nil, err
	}
	if errs := clusterstate.CheckCompatible(cl, cc, tpls, cur); len(errs) > 0 {
		return nil, fmt.Errorf("ClusterClass %s cannot build this Cluster's objects: %w", key, errs.ToAggregate())
	}
	// The controller's upgrade orchestration: the versions it gives each object now, and the
	// objects it holds while their upgrade is pending.
	ext, err := extensions(ctx, c, cc)
	if err != nil {
		return nil, err
	}
	upgradePlan, ferr, err := clusterstate.PlanUpgradeWith(ctx, r, plannerOf(ext), cl, cc, cur)
	switch {
	case ferr != nil:
		return nil, fmt.Errorf("Cluster %s/%s: %w", cl.Namespace, cl.Name, ferr)
	case err != nil:
		return nil, err
	}
	state, err := clusterstate.Compute(ctx, patcherOf(ext), cl, cc, defs, tpls, cur, clusterstate.Versions(upgradePlan), nil)
	if err != nil {
		return nil, err
	}
	p := &ClusterPlan{Cluster: cl.Namespace + "/" + cl.Name, Class: key.String(), Version: cl.Spec.Topology.Version, Upgrade: upgradePlan.Pending}
	wanted, err := desiredObjects(state, cur.ControlPlaneContract, clusterstate.NewHeld(upgradePlan, cur))
	if err != nil {
		return nil, err
	}
	for _, w := range wanted {
		ch, err := compare(ctx, c, w)
		if err != nil {
			return nil, err
		}
		if ch != nil {
			p.Changes = append(p.Changes, *ch)
		}
	}
	dels, err := deletions(ctx, c, cl, state, cur)
	if err != nil {
		return nil, err
	}
	p.Changes = append(p.Changes, dels...)
	return p, nil
}

// admitted returns cl as the management cluster would store it (CRD defaults and admission
// policies applied, schema and CEL rules checked: a server-side dry run, which stores nothing),
// with what the stored Cluster of that name has and the files do not: its UID (owner of the
// generated objects) and the references the controller set.
func admitted(ctx context.Context, c client.Client, cl *clusterv1.Cluster) (*clusterv1.Cluster, error) {
	existing := &clusterv1.Cluster{}
	err := c.Get(ctx, client.ObjectKeyFromObject(cl), existing)
	dry := cl.DeepCopy()
	switch {
	case apierrors.IsNotFound(err):
		if err := c.Create(ctx, dry, client.DryRunAll); err != nil {
			return nil, fmt.Errorf("the management cluster refuses the Cluster: %w", err)
		}
		dry.UID = "" // made up by the dry run: the generated objects get the real one
		return dry, nil
	case err != nil:
		return nil, fmt.Errorf("reading the Cluster from the management cluster: %w", err)
	}
	dry.UID, dry.ResourceVersion = existing.UID, existing.ResourceVersion
	if !dry.Spec.InfrastructureRef.IsDefined() {
		dry.Spec.InfrastructureRef = existing.Spec.InfrastructureRef
	}
	if !dry.Spec.ControlPlaneRef.IsDefined() {
		dry.Spec.ControlPlaneRef = existing.Spec.ControlPlaneRef
	}
	if err := c.Update(ctx, dry, client.DryRunAll); err != nil {
		return nil, fmt.Errorf("the management cluster refuses the Cluster as an update: %w", err)
	}
	return dry, nil
}
