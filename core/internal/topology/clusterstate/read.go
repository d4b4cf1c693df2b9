package clusterstate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	// MachineDeployments are the Cluster's topology-owned MachineDeployments by topology name.
	MachineDeployments map[string]*clusterv1.MachineDeployment
	// MachinePools are the Cluster's topology-owned MachinePools by topology name.
	MachinePools map[string]*clusterv1.MachinePool
	// ControlPlaneContract is the contract version of the control plane's kind.
	ControlPlaneContract contract.ContractVersion
}

// ReadCurrent finds what c has: the referenced InfrastructureCluster and ControlPlane (and the
// machine template the latter references) and its topology MachineDeployments and MachinePools;
// cpTemplate is the
// class's control-plane template, whose kind names the control plane's.
func ReadCurrent(ctx context.Context, r client.Reader, c *clusterv1.Cluster, cpTemplate *unstructured.Unstructured) (*Current, error) {
	cpGK := schema.FromAPIVersionAndKind(cpTemplate.GetAPIVersion(), strings.TrimSuffix(cpTemplate.GetKind(), "Template")).GroupKind()
	v, err := contract.GetContractVersion(ctx, r, cpGK)
	if err != nil {
		return nil, fmt.Errorf("control plane kind %s: %w", cpGK, err)
	}
	cur := &Current{Names: desired.Current{MachineDeployments: map[string]desired.CurrentWorker{}, MachinePools: map[string]desired.CurrentWorker{}},
		MachineDeployments: map[string]*clusterv1.MachineDeployment{}, MachinePools: map[string]*clusterv1.MachinePool{}, ControlPlaneContract: v.Contract}
	cur.Names.InfrastructureClusterName = c.Spec.InfrastructureRef.Name
	if ref := c.Spec.ControlPlaneRef; ref.IsDefined() {
		cur.Names.ControlPlaneName = ref.Name
		cp := &unstructured.Unstructured{}
		cp.SetGroupVersionKind(v.GroupVersionKind(ref.GroupKind()))
		err := r.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: ref.Name}, cp)
		switch {
		case err == nil:
			cur.ControlPlane = cp
			if mref, err := contract.ControlPlane().MachineTemplateInfrastructureRef(v.Contract).Get(cp); err == nil {
				cur.Names.ControlPlaneMachineInfrastructureName = mref.Name
			}
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading ControlPlane %s: %w", ref.Name, err)
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
	return cur, readMachinePools(ctx, r, c, cur)
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
