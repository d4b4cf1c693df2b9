package topology

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/core/internal/topology/desired"
)

// deleteUnusedTemplates deletes the Cluster's template copies that neither the desired state nor
// any MachineSet of the Cluster references: the copies replaced by a rotation, those of removed
// MachineDeployments once their MachineSets are gone, and those a reconcile created before it
// stopped short of the object referencing them. Every kind a copy may have is looked at, so that
// copies of a kind the class no longer uses go too: the desired state's, the class's, those the
// control plane, the MachineDeployments and the MachineSets reference, and every template kind the
// providers serve in their groups (a kind nothing names any more, once the last MachineSet using
// it is gone).
func (r *Reconciler) deleteUnusedTemplates(ctx context.Context, s *scope, state *desired.State) error {
	k := kinds{}
	keep := map[string]bool{}
	use := func(obj *unstructured.Unstructured) {
		keep[templateKey(obj.GroupVersionKind().GroupKind(), obj.GetName())] = true
		k.add(obj.GroupVersionKind())
	}
	if state.ControlPlaneMachineInfrastructure != nil {
		use(state.ControlPlaneMachineInfrastructure)
	}
	for _, md := range state.MachineDeployments {
		use(md.Bootstrap)
		use(md.Infrastructure)
	}
	if ref := s.class.Spec.ControlPlane.MachineInfrastructure.TemplateRef; ref.IsDefined() {
		k.add(ref.GroupVersionKind())
	}
	for _, mdc := range s.class.Spec.Workers.MachineDeployments {
		k.add(mdc.Bootstrap.TemplateRef.GroupVersionKind())
		k.add(mdc.Infrastructure.TemplateRef.GroupVersionKind())
	}
	if err := r.addServedTemplateKinds(ctx, k); err != nil {
		return err
	}
	k.addGroupKind(s.current.ControlPlaneMachineInfrastructure)
	for _, md := range s.current.MachineDeployments {
		k.addGroupKind(md.Spec.Template.Spec.Bootstrap.ConfigRef.GroupKind())
		k.addGroupKind(md.Spec.Template.Spec.InfrastructureRef.GroupKind())
	}
	sets := &clusterv1.MachineSetList{}
	if err := r.Client.List(ctx, sets, client.InNamespace(s.cluster.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: s.cluster.Name}); err != nil {
		return fmt.Errorf("listing the Cluster's MachineSets: %w", err)
	}
	for _, ms := range sets.Items {
		spec := ms.Spec.Template.Spec
		for _, ref := range []clusterv1.ContractVersionedObjectReference{spec.Bootstrap.ConfigRef, spec.InfrastructureRef} {
			keep[templateKey(ref.GroupKind(), ref.Name)] = true
			k.addGroupKind(ref.GroupKind())
		}
	}
	return r.deleteUnused(ctx, s.cluster, k, keep, func(*unstructured.Unstructured) bool { return true })
}

// deleteUnusedPoolObjects deletes the BootstrapConfigs and InfraMachinePools the topology created
// for a MachinePool entry that neither the desired state references nor a MachinePool controls:
// those created before a reconcile stopped short of their MachinePool when the entry is gone
// since (or when findPoolObjects took older ones). A MachinePool's own are its controller's to
// delete. The kinds looked at are the desired state's, the class's MachinePool classes' and those
// the MachinePools reference.
func (r *Reconciler) deleteUnusedPoolObjects(ctx context.Context, s *scope, state *desired.State) error {
	k := kinds{}
	keep := map[string]bool{}
	for _, mp := range state.MachinePools {
		for _, obj := range []*unstructured.Unstructured{mp.Bootstrap, mp.Infrastructure} {
			keep[templateKey(obj.GroupVersionKind().GroupKind(), obj.GetName())] = true
			k.add(obj.GroupVersionKind())
		}
	}
	for _, mpc := range s.class.Spec.Workers.MachinePools {
		k.add(desired.ObjectKind(mpc.Bootstrap.TemplateRef.APIVersion, mpc.Bootstrap.TemplateRef.Kind))
		k.add(desired.ObjectKind(mpc.Infrastructure.TemplateRef.APIVersion, mpc.Infrastructure.TemplateRef.Kind))
	}
	for _, mp := range s.current.MachinePools {
		k.addGroupKind(mp.Spec.Template.Spec.Bootstrap.ConfigRef.GroupKind())
		k.addGroupKind(mp.Spec.Template.Spec.InfrastructureRef.GroupKind())
	}
	return r.deleteUnused(ctx, s.cluster, k, keep, func(obj *unstructured.Unstructured) bool {
		return obj.GetLabels()[clusterv1.ClusterTopologyMachinePoolNameLabel] != "" && metav1.GetControllerOf(obj) == nil
	})
}

// kinds are the kinds to sweep, by group and kind, each with a version to list it at ("" until
// resolved from its CRD's contract label).
type kinds map[schema.GroupKind]string

func (k kinds) add(gvk schema.GroupVersionKind) {
	if gvk.Kind != "" && k[gvk.GroupKind()] == "" {
		k[gvk.GroupKind()] = gvk.Version
	}
}

func (k kinds) addGroupKind(gk schema.GroupKind) {
	if _, ok := k[gk]; !ok && gk.Kind != "" {
		k[gk] = ""
	}
}

// deleteUnused deletes c's objects of kinds that the topology generated for it (its labels, c as
// owner), that keep does not name (templateKey), that are not being deleted and that unused
// accepts.
func (r *Reconciler) deleteUnused(ctx context.Context, c *clusterv1.Cluster, k kinds, keep map[string]bool, unused func(*unstructured.Unstructured) bool) error {
	for gk, version := range k {
		if version == "" {
			v, err := contract.GetContractVersion(ctx, r.Client, gk)
			if errors.Is(err, contract.ErrCRDNotFound) {
				continue // no such kind is served: nothing of it to delete
			}
			if err != nil {
				return fmt.Errorf("kind %s of the Cluster's generated objects: %w", gk, err)
			}
			version = v.APIVersion
		}
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gk.WithVersion(version).GroupVersion().WithKind(gk.Kind + "List"))
		err := r.Client.List(ctx, list, client.InNamespace(c.Namespace), ownedBy(c))
		if meta.IsNoMatchError(err) {
			continue // a class's kind whose provider is not installed: nothing of it to delete
		}
		if err != nil {
			return fmt.Errorf("listing the Cluster's %s objects: %w", gk.Kind, err)
		}
		for i := range list.Items {
			obj := &list.Items[i]
			if keep[templateKey(gk, obj.GetName())] || !obj.GetDeletionTimestamp().IsZero() || !ownedByCluster(obj, c) || !unused(obj) {
				continue
			}
			if err := r.delete(ctx, c, obj); err != nil {
				return err
			}
		}
	}
	return nil
}

func templateKey(gk schema.GroupKind, name string) string { return gk.String() + "/" + name }

// ownedByCluster reports whether c (by UID) owns obj: only copies the topology made are deleted.
func ownedByCluster(obj metav1.Object, c *clusterv1.Cluster) bool {
	for _, o := range obj.GetOwnerReferences() {
		if o.UID == c.UID {
			return true
		}
	}
	return false
}

// providerGroups are the API groups of the provider kinds the topology writes; its RBAC grants
// all their kinds.
var providerGroups = []string{"infrastructure.cluster.x-k8s.io", "bootstrap.cluster.x-k8s.io", "controlplane.cluster.x-k8s.io"}

// addServedTemplateKinds adds to k every template kind served in providerGroups by a provider's
// CRD (a contract label, a plural ending in "templates"), at the version its contract label names.
func (r *Reconciler) addServedTemplateKinds(ctx context.Context, k kinds) error {
	crds := &metav1.PartialObjectMetadataList{}
	crds.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinitionList"})
	if err := r.Client.List(ctx, crds); err != nil {
		return fmt.Errorf("listing CustomResourceDefinitions: %w", err)
	}
	for i := range crds.Items {
		crd := &crds.Items[i]
		plural, group, _ := strings.Cut(crd.Name, ".")
		if !strings.HasSuffix(plural, "templates") || !slices.Contains(providerGroups, group) {
			continue
		}
		v, err := contract.VersionFromLabels(crd.Name, crd.Labels)
		if err != nil || v.APIVersion == "" {
			continue // not a provider's CRD (no or another contract label): the topology does not copy it
		}
		gvk, err := r.Client.RESTMapper().KindFor(schema.GroupVersionResource{Group: group, Version: v.APIVersion, Resource: plural})
		if err != nil {
			return fmt.Errorf("the kind of CustomResourceDefinition %s: %w", crd.Name, err)
		}
		k.add(gvk)
	}
	return nil
}
