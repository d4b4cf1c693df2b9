package topology

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/core/internal/topology/clusterstate"
	"capstan.dev/core/internal/topology/desired"
)

// applyState applies the desired state in dependency order: the InfrastructureCluster, the
// control plane's machine template, the ControlPlane, the Cluster's references, then each
// MachineDeployment's templates, the MachineDeployment and the health checks, then each
// MachinePool's BootstrapConfig and InfraMachinePool and the MachinePool. Workers whose creation
// waits for the control plane are left out.
func (r *Reconciler) applyState(ctx context.Context, s *scope, state *desired.State, cpContract contract.ContractVersion) error {
	c := s.cluster
	if err := r.apply(ctx, c, state.InfrastructureCluster); err != nil {
		return err
	}
	if err := r.applyControlPlane(ctx, s, state, cpContract); err != nil {
		return err
	}
	// The references are set once; the Cluster controller adopts what they name.
	if !c.Spec.InfrastructureRef.IsDefined() {
		c.Spec.InfrastructureRef = state.InfrastructureRef
	}
	if !c.Spec.ControlPlaneRef.IsDefined() {
		c.Spec.ControlPlaneRef = state.ControlPlaneRef
	}
	if err := r.applyHealthCheck(ctx, c, state.ControlPlaneHealthCheck, state.ControlPlane.GetName()); err != nil {
		return err
	}
	for i := range state.MachineDeployments {
		if s.held().MachineDeploymentCreateDeferred(state.MachineDeployments[i].TopologyName) {
			continue
		}
		if err := r.applyMachineDeployment(ctx, s, &state.MachineDeployments[i]); err != nil {
			return err
		}
	}
	for i := range state.MachinePools {
		mp := &state.MachinePools[i]
		if s.held().MachinePool(mp.TopologyName) || s.held().MachinePoolCreateDeferred(mp.TopologyName) {
			continue
		}
		if err := r.applyMachinePool(ctx, c, mp); err != nil {
			return err
		}
	}
	return nil
}

// held tells which objects get no change while their upgrade is pending.
func (s *scope) held() clusterstate.Held { return clusterstate.NewHeld(s.upgrade, s.current) }

// applyControlPlane applies the control plane's machine template copy and the ControlPlane,
// unless the control plane's upgrade is pending.
func (r *Reconciler) applyControlPlane(ctx context.Context, s *scope, state *desired.State, cpContract contract.ContractVersion) error {
	if s.held().ControlPlane() {
		return nil
	}
	if cpm := state.ControlPlaneMachineInfrastructure; cpm != nil {
		if err := r.applyTemplate(ctx, s.cluster, cpm, ""); err != nil {
			return err
		}
		ref := contract.ObjectReference{APIGroup: cpm.GroupVersionKind().Group, Kind: cpm.GetKind(), Name: cpm.GetName(), APIVersion: cpm.GetAPIVersion()}
		if err := contract.ControlPlane().MachineTemplateInfrastructureRef(cpContract).Set(state.ControlPlane, ref); err != nil {
			return fmt.Errorf("pointing ControlPlane %s at %s: %w", state.ControlPlane.GetName(), cpm.GetName(), err)
		}
	}
	return r.apply(ctx, s.cluster, state.ControlPlane)
}

// applyMachinePool applies one MachinePool after its BootstrapConfig and InfraMachinePool. Those
// two are objects, not templates: as upstream does, they keep their names and are updated in
// place (the infrastructure provider rolls the pool's instances on a change), never rotated.
func (r *Reconciler) applyMachinePool(ctx context.Context, c *clusterv1.Cluster, mp *desired.MachinePoolState) error {
	if err := r.apply(ctx, c, mp.Bootstrap); err != nil {
		return err
	}
	if err := r.apply(ctx, c, mp.Infrastructure); err != nil {
		return err
	}
	obj, err := toIntent(mp.Object)
	if err != nil {
		return err
	}
	return r.apply(ctx, c, obj)
}

// applyMachineDeployment applies one MachineDeployment with its template copies and health
// check; only the health check while its upgrade is pending.
func (r *Reconciler) applyMachineDeployment(ctx context.Context, s *scope, md *desired.MachineDeploymentState) error {
	if s.held().MachineDeployment(md.TopologyName) {
		return r.applyHealthCheck(ctx, s.cluster, md.HealthCheck, md.Object.Name)
	}
	if err := r.applyTemplate(ctx, s.cluster, md.Bootstrap, md.TopologyName); err != nil {
		return err
	}
	if err := r.applyTemplate(ctx, s.cluster, md.Infrastructure, md.TopologyName); err != nil {
		return err
	}
	spec := &md.Object.Spec.Template.Spec
	spec.Bootstrap.ConfigRef.Name = md.Bootstrap.GetName()
	spec.InfrastructureRef.Name = md.Infrastructure.GetName()
	obj, err := toIntent(md.Object)
	if err != nil {
		return err
	}
	if err := r.apply(ctx, s.cluster, obj); err != nil {
		return err
	}
	return r.applyHealthCheck(ctx, s.cluster, md.HealthCheck, md.Object.Name)
}

// applyHealthCheck applies mhc, or deletes the topology's MachineHealthCheck of that name when
// none is wanted any more.
func (r *Reconciler) applyHealthCheck(ctx context.Context, c *clusterv1.Cluster, mhc *clusterv1.MachineHealthCheck, name string) error {
	if mhc != nil {
		obj, err := toIntent(mhc)
		if err != nil {
			return err
		}
		return r.apply(ctx, c, obj)
	}
	return r.deleteOwned(ctx, c, &clusterv1.MachineHealthCheck{}, name)
}

// applyTemplate applies a template copy. A copy is never edited in its spec: when the existing
// copy's spec differs from the intent, the intent is created under a new name (template
// rotation) and tpl renamed, so the caller points the referrer at it; the old copy is deleted
// once nothing references it (deleteUnusedTemplates).
func (r *Reconciler) applyTemplate(ctx context.Context, c *clusterv1.Cluster, tpl *unstructured.Unstructured, mdTopologyName string) error {
	cur, err := r.getOrCreate(ctx, c, tpl)
	if err != nil || cur == nil {
		return err // not found: apply creates it
	}
	dry, err := r.dryRun(ctx, tpl)
	switch {
	case apierrors.IsInvalid(err):
		// A kind whose template spec is immutable refuses even a dry run of a change (a CEL
		// rule cannot tell a dry run; upstream providers' webhooks skip theirs for it): the
		// intent differs, so it is rotated. An intent invalid in itself fails its creation
		// below, with the API server's message.
		ctrl.LoggerFrom(ctx).Info("The dry run of a template change was refused: rotating the template", tpl.GetKind(), tpl.GetName(), "refusal", err.Error())
	case err != nil:
		return err
	case !clusterstate.SpecDiffers(dry, cur):
		if metadataDiffers(dry, cur) {
			return r.write(ctx, c, tpl, "Updating")
		}
		return nil
	}
	old := tpl.GetName()
	tpl.SetName(desired.TemplateCopyName(labelOf(tpl, clusterv1.ClusterNameLabel), mdTopologyName, r.random))
	ctrl.LoggerFrom(ctx).Info(fmt.Sprintf("Creating %s %s as a replacement for %s (template rotation)", tpl.GetKind(), tpl.GetName(), old))
	return r.write(ctx, c, tpl, "")
}

// apply creates obj or, when a server-side dry run shows the intent would change it, applies it.
func (r *Reconciler) apply(ctx context.Context, c *clusterv1.Cluster, obj *unstructured.Unstructured) error {
	cur, err := r.getOrCreate(ctx, c, obj)
	if err != nil || cur == nil {
		return err
	}
	dry, err := r.dryRun(ctx, obj)
	if err != nil {
		return err
	}
	if !metadataDiffers(dry, cur) && !clusterstate.SpecDiffers(dry, cur) {
		return nil
	}
	return r.write(ctx, c, obj, "Updating")
}

// getOrCreate reads the object obj names; when it does not exist it creates it from obj and
// returns nil, so the caller has nothing to compare.
func (r *Reconciler) getOrCreate(ctx context.Context, c *clusterv1.Cluster, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(obj.GroupVersionKind())
	err := r.Client.Get(ctx, client.ObjectKeyFromObject(obj), cur)
	if apierrors.IsNotFound(err) {
		return nil, r.write(ctx, c, obj, "Creating")
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return cur, nil
}

// write server-side applies obj as the topology's field manager, taking over conflicting fields,
// and records it on c (verb "Updating" an update, anything else a creation).
func (r *Reconciler) write(ctx context.Context, c *clusterv1.Cluster, obj *unstructured.Unstructured, verb string) error {
	if verb != "" {
		ctrl.LoggerFrom(ctx).Info(verb+" "+obj.GetKind(), obj.GetKind(), obj.GetName())
	}
	err := r.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()),
		client.FieldOwner(FieldManager), client.ForceOwnership)
	r.recordWrite(c, obj, verb == "Updating", err)
	if err != nil {
		return fmt.Errorf("applying %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	if verb == "Creating" {
		return r.waitForCache(ctx, obj)
	}
	return nil
}

// waitForCache waits, briefly, until the cache holds obj just created, as upstream's topology
// controller does: the next reconcile finds generated objects through the cache (by their
// labels, or through the Cluster's references whose write may still be on its way), and one
// that missed them would generate them again under new random names.
func (r *Reconciler) waitForCache(ctx context.Context, obj *unstructured.Unstructured) error {
	cached := &unstructured.Unstructured{}
	cached.SetGroupVersionKind(obj.GroupVersionKind())
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		err := r.Client.Get(ctx, client.ObjectKeyFromObject(obj), cached)
		return err == nil, client.IgnoreNotFound(err)
	})
	if err != nil {
		return fmt.Errorf("waiting for the cache to hold %s %s, just created: %w", obj.GetKind(), obj.GetName(), err)
	}
	return nil
}

// dryRun returns what applying obj would store.
func (r *Reconciler) dryRun(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return clusterstate.DryRunApply(ctx, r.Client, obj)
}

var (
	metadataDiffers = clusterstate.MetadataDiffers
	toIntent        = clusterstate.Intent
)

func labelOf(obj client.Object, key string) string { return obj.GetLabels()[key] }

func (r *Reconciler) random() string {
	if r.Random != nil {
		return r.Random()
	}
	return desired.RandomSuffix()
}
