package clusterstate

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/core/internal/topology/desired"
)

// ClassKey is where a topology Cluster's ClusterClass lives: classRef.namespace or the Cluster's.
func ClassKey(c *clusterv1.Cluster) client.ObjectKey {
	ns := c.Spec.Topology.ClassRef.Namespace
	if ns == "" {
		ns = c.Namespace
	}
	return client.ObjectKey{Namespace: ns, Name: c.Spec.Topology.ClassRef.Name}
}

// OwnedBy selects the objects the topology generated for c.
func OwnedBy(c *clusterv1.Cluster) client.ListOption {
	return client.MatchingLabels{clusterv1.ClusterNameLabel: c.Name, clusterv1.ClusterTopologyOwnedLabel: ""}
}

// ReadTemplates reads, from the class's namespace, the class's templates that c uses: the
// infrastructure and control-plane ones and those of the MachineDeployment and MachinePool
// classes c's topology names. Every template that cannot be read is reported, with the class field referencing it.
func ReadTemplates(ctx context.Context, r client.Reader, cc *clusterv1.ClusterClass, c *clusterv1.Cluster) (desired.Templates, error) {
	get := func(path string, ref clusterv1.ClusterClassTemplateReference) (*unstructured.Unstructured, error) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(ref.GroupVersionKind())
		if err := r.Get(ctx, client.ObjectKey{Namespace: cc.Namespace, Name: ref.Name}, u); err != nil {
			return nil, fmt.Errorf("reading %s %s/%s (ClusterClass %s %s): %w", ref.Kind, cc.Namespace, ref.Name, cc.Name, path, err)
		}
		return u, nil
	}
	var errs []error
	var err error
	t := desired.Templates{}
	t.InfrastructureCluster, err = get("spec.infrastructure.templateRef", cc.Spec.Infrastructure.TemplateRef)
	errs = append(errs, err)
	t.ControlPlane, err = get("spec.controlPlane.templateRef", cc.Spec.ControlPlane.TemplateRef)
	errs = append(errs, err)
	if ref := cc.Spec.ControlPlane.MachineInfrastructure.TemplateRef; ref.IsDefined() {
		t.ControlPlaneMachineInfrastructure, err = get("spec.controlPlane.machineInfrastructure.templateRef", ref)
		errs = append(errs, err)
	}
	workers := c.Spec.Topology.Workers
	var mdUsed, mpUsed []string
	for _, md := range workers.MachineDeployments {
		mdUsed = append(mdUsed, md.Class)
	}
	for _, mp := range workers.MachinePools {
		mpUsed = append(mpUsed, mp.Class)
	}
	var mdClasses, mpClasses []workerClass
	for _, mdc := range cc.Spec.Workers.MachineDeployments {
		mdClasses = append(mdClasses, workerClass{mdc.Class, mdc.Bootstrap.TemplateRef, mdc.Infrastructure.TemplateRef})
	}
	for _, mpc := range cc.Spec.Workers.MachinePools {
		mpClasses = append(mpClasses, workerClass{mpc.Class, mpc.Bootstrap.TemplateRef, mpc.Infrastructure.TemplateRef})
	}
	t.MachineDeployments, err = readWorkerTemplates(get, "spec.workers.machineDeployments", mdClasses, mdUsed)
	errs = append(errs, err)
	t.MachinePools, err = readWorkerTemplates(get, "spec.workers.machinePools", mpClasses, mpUsed)
	errs = append(errs, err)
	return t, errors.Join(errs...)
}

// workerClass is what ReadTemplates needs of a MachineDeployment or MachinePool class.
type workerClass struct {
	name                      string
	bootstrap, infrastructure clusterv1.ClusterClassTemplateReference
}

// readWorkerTemplates reads the templates of the worker classes (under the class field path)
// that the topology uses, keyed by class.
func readWorkerTemplates(get func(string, clusterv1.ClusterClassTemplateReference) (*unstructured.Unstructured, error),
	path string, classes []workerClass, used []string) (map[string]desired.WorkerTemplates, error) {
	out := map[string]desired.WorkerTemplates{}
	var errs []error
	for _, wc := range classes {
		if !slices.Contains(used, wc.name) {
			continue
		}
		p := path + "[" + wc.name + "]"
		var wt desired.WorkerTemplates
		var err error
		wt.Bootstrap, err = get(p+".bootstrap.templateRef", wc.bootstrap)
		errs = append(errs, err)
		wt.Infrastructure, err = get(p+".infrastructure.templateRef", wc.infrastructure)
		errs = append(errs, err)
		out[wc.name] = wt
	}
	return out, errors.Join(errs...)
}

// Current is what exists of a Cluster's generated objects.
type Current struct {
	// Names are the generated objects' names, so that Compute keeps them.
	Names desired.Current
	// ControlPlane is the referenced ControlPlane; nil when it does not exist yet.
	ControlPlane *unstructured.Unstructured
	// ControlPlaneMachineInfrastructure is the kind of the machine template the ControlPlane
	// references; empty when it references none (or does not exist).
	ControlPlaneMachineInfrastructure schema.GroupKind
	// MachineDeployments are the Cluster's topology-owned MachineDeployments by topology name.
	MachineDeployments map[string]*clusterv1.MachineDeployment
	// MachinePools are the Cluster's topology-owned MachinePools by topology name.
	MachinePools map[string]*clusterv1.MachinePool
	// ControlPlaneContract is the contract version of the control plane's kind.
	ControlPlaneContract contract.ContractVersion
}

// ReadCurrent finds what c has: the referenced InfrastructureCluster and ControlPlane (and the
// machine template the latter references) and its topology MachineDeployments and MachinePools;
// tpls are the class's templates, whose kinds name the InfrastructureCluster's and the
// ControlPlane's. While the Cluster does not reference them yet, the ones the topology created
// for it are found by their labels and owner: the Cluster read may predate the write of its
// references, or the manager may have stopped between creating them and writing it; a second
// ControlPlane would be an orphan.
func ReadCurrent(ctx context.Context, r client.Reader, c *clusterv1.Cluster, tpls desired.Templates) (*Current, error) {
	// The ControlPlane the Cluster references is read as the kind it is, which a class change
	// may not alter (CheckCompatible).
	cpGK := kindOfTemplate(tpls.ControlPlane)
	if c.Spec.ControlPlaneRef.IsDefined() {
		cpGK = c.Spec.ControlPlaneRef.GroupKind()
	}
	v, err := contract.GetContractVersion(ctx, r, cpGK)
	if err != nil {
		return nil, fmt.Errorf("control plane kind %s: %w", cpGK, err)
	}
	cur := &Current{Names: desired.Current{MachineDeployments: map[string]desired.CurrentWorker{}, MachinePools: map[string]desired.CurrentWorker{}},
		MachineDeployments: map[string]*clusterv1.MachineDeployment{}, MachinePools: map[string]*clusterv1.MachinePool{}, ControlPlaneContract: v.Contract}
	cur.Names.InfrastructureClusterName = c.Spec.InfrastructureRef.Name
	if cur.Names.InfrastructureClusterName == "" && tpls.InfrastructureCluster != nil {
		gk := kindOfTemplate(tpls.InfrastructureCluster)
		iv, err := contract.GetContractVersion(ctx, r, gk)
		if err != nil {
			return nil, fmt.Errorf("infrastructure cluster kind %s: %w", gk, err)
		}
		if cur.Names.InfrastructureClusterName, err = createdFor(ctx, r, c, iv.GroupVersionKind(gk), ""); err != nil {
			return nil, err
		}
	}
	cpName := c.Spec.ControlPlaneRef.Name
	if !c.Spec.ControlPlaneRef.IsDefined() {
		if cpName, err = createdFor(ctx, r, c, v.GroupVersionKind(cpGK), ""); err != nil {
			return nil, err
		}
	}
	if cpName != "" {
		cur.Names.ControlPlaneName = cpName
		cp := &unstructured.Unstructured{}
		cp.SetGroupVersionKind(v.GroupVersionKind(cpGK))
		err := r.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: cpName}, cp)
		switch {
		case err == nil:
			cur.ControlPlane = cp
			if mref, err := contract.ControlPlane().MachineTemplateInfrastructureRef(v.Contract).Get(cp); err == nil {
				cur.Names.ControlPlaneMachineInfrastructureName = mref.Name
				cur.ControlPlaneMachineInfrastructure = mref.GroupKind()
			}
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading ControlPlane %s: %w", cpName, err)
		}
	}
	mds := &clusterv1.MachineDeploymentList{}
	if err := r.List(ctx, mds, client.InNamespace(c.Namespace), OwnedBy(c)); err != nil {
		return nil, fmt.Errorf("listing the Cluster's MachineDeployments: %w", err)
	}
	for i := range mds.Items {
		md := &mds.Items[i]
		name := md.Labels[clusterv1.ClusterTopologyMachineDeploymentNameLabel]
		if name == "" || !md.DeletionTimestamp.IsZero() {
			continue
		}
		cur.MachineDeployments[name] = md
		cur.Names.MachineDeployments[name] = desired.CurrentWorker{Name: md.Name,
			BootstrapName: md.Spec.Template.Spec.Bootstrap.ConfigRef.Name, InfrastructureName: md.Spec.Template.Spec.InfrastructureRef.Name}
	}
	if err := readMachinePools(ctx, r, c, cur); err != nil {
		return nil, err
	}
	return cur, findPoolObjects(ctx, r, c, tpls, cur)
}

// kindOfTemplate is the kind a template's objects have: the template's kind without "Template".
func kindOfTemplate(tpl *unstructured.Unstructured) schema.GroupKind {
	return objectKind(tpl).GroupKind()
}

func objectKind(tpl *unstructured.Unstructured) schema.GroupVersionKind {
	return desired.ObjectKind(tpl.GetAPIVersion(), tpl.GetKind())
}

// createdFor is the name of the oldest object of gvk the topology created for c (its labels, and
// c as an owner), not being deleted; empty when there is none. With pool, only the objects
// created for that MachinePool topology entry (its label) that no MachinePool controls yet.
func createdFor(ctx context.Context, r client.Reader, c *clusterv1.Cluster, gvk schema.GroupVersionKind, pool string) (string, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	selector := client.MatchingLabels{clusterv1.ClusterNameLabel: c.Name, clusterv1.ClusterTopologyOwnedLabel: ""}
	if pool != "" {
		selector[clusterv1.ClusterTopologyMachinePoolNameLabel] = pool
	}
	if err := r.List(ctx, list, client.InNamespace(c.Namespace), selector); err != nil {
		return "", fmt.Errorf("listing the %s objects the topology created for Cluster %s: %w", gvk.Kind, c.Name, err)
	}
	var found *unstructured.Unstructured
	for i := range list.Items {
		obj := &list.Items[i]
		if obj.GetDeletionTimestamp() != nil || !ownedByUID(obj, c.UID) || (pool != "" && metav1.GetControllerOf(obj) != nil) {
			continue
		}
		if found == nil {
			found = obj
			continue
		}
		created, foundCreated := obj.GetCreationTimestamp(), found.GetCreationTimestamp()
		if created.Before(&foundCreated) || (created.Equal(&foundCreated) && obj.GetName() < found.GetName()) {
			found = obj
		}
	}
	if found == nil {
		return "", nil
	}
	return found.GetName(), nil
}

func ownedByUID(obj client.Object, uid types.UID) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.UID == uid {
			return true
		}
	}
	return false
}

// readMachinePools adds c's topology MachinePools (not being deleted) to cur, with the names of
// the BootstrapConfig and InfraMachinePool each references.
func readMachinePools(ctx context.Context, r client.Reader, c *clusterv1.Cluster, cur *Current) error {
	mps := &clusterv1.MachinePoolList{}
	if err := r.List(ctx, mps, client.InNamespace(c.Namespace), OwnedBy(c)); err != nil {
		return fmt.Errorf("listing the Cluster's MachinePools: %w", err)
	}
	for i := range mps.Items {
		mp := &mps.Items[i]
		name := mp.Labels[clusterv1.ClusterTopologyMachinePoolNameLabel]
		if name == "" || !mp.DeletionTimestamp.IsZero() {
			continue
		}
		cur.MachinePools[name] = mp
		cur.Names.MachinePools[name] = desired.CurrentWorker{Name: mp.Name,
			BootstrapName: mp.Spec.Template.Spec.Bootstrap.ConfigRef.Name, InfrastructureName: mp.Spec.Template.Spec.InfrastructureRef.Name}
	}
	return nil
}

// findPoolObjects names, for each MachinePool entry whose MachinePool does not exist, the
// BootstrapConfig and InfraMachinePool the topology created for it before it stopped short of
// creating the MachinePool (a restart, a failed write): they are used, where new ones would leave
// them orphaned. Those a MachinePool controls belong to it, not to the entry.
func findPoolObjects(ctx context.Context, r client.Reader, c *clusterv1.Cluster, tpls desired.Templates, cur *Current) error {
	for _, mpt := range c.Spec.Topology.Workers.MachinePools {
		t := tpls.MachinePools[mpt.Class]
		if cur.MachinePools[mpt.Name] != nil || t.Bootstrap == nil || t.Infrastructure == nil {
			continue
		}
		var n desired.CurrentWorker
		var err error
		if n.BootstrapName, err = createdFor(ctx, r, c, objectKind(t.Bootstrap), mpt.Name); err != nil {
			return err
		}
		if n.InfrastructureName, err = createdFor(ctx, r, c, objectKind(t.Infrastructure), mpt.Name); err != nil {
			return err
		}
		cur.Names.MachinePools[mpt.Name] = n
	}
	return nil
}
