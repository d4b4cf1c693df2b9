package clusterstate

import (
	"context"
	"errors"
	"fmt"
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
// infrastructure and control-plane ones and those of the MachineDeployment classes c's topology
// names. Every template that cannot be read is reported, with the class field referencing it.
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
	t := desired.Templates{MachineDeployments: map[string]desired.WorkerTemplates{}}
	t.InfrastructureCluster, err = get("spec.infrastructure.templateRef", cc.Spec.Infrastructure.TemplateRef)
	errs = append(errs, err)
	t.ControlPlane, err = get("spec.controlPlane.templateRef", cc.Spec.ControlPlane.TemplateRef)
	errs = append(errs, err)
	if ref := cc.Spec.ControlPlane.MachineInfrastructure.TemplateRef; ref.IsDefined() {
		t.ControlPlaneMachineInfrastructure, err = get("spec.controlPlane.machineInfrastructure.templateRef", ref)
		errs = append(errs, err)
	}
	used := map[string]bool{}
	for _, md := range c.Spec.Topology.Workers.MachineDeployments {
		used[md.Class] = true
	}
	for _, mdc := range cc.Spec.Workers.MachineDeployments {
		if !used[mdc.Class] {
			continue
		}
		p := "spec.workers.machineDeployments[" + mdc.Class + "]"
		var mt desired.WorkerTemplates
		mt.Bootstrap, err = get(p+".bootstrap.templateRef", mdc.Bootstrap.TemplateRef)
		errs = append(errs, err)
		mt.Infrastructure, err = get(p+".infrastructure.templateRef", mdc.Infrastructure.TemplateRef)
		errs = append(errs, err)
		t.MachineDeployments[mdc.Class] = mt
	}
	return t, errors.Join(errs...)
}

// Current is what exists of a Cluster's generated objects.
type Current struct {
	// Names are the generated objects' names, so that Compute keeps them.
	Names desired.Current
	// ControlPlane is the referenced ControlPlane; nil when it does not exist yet.
	ControlPlane *unstructured.Unstructured
	// MachineDeployments are the Cluster's topology-owned MachineDeployments by topology name.
	MachineDeployments map[string]*clusterv1.MachineDeployment
	// ControlPlaneContract is the contract version of the control plane's kind.
	ControlPlaneContract contract.ContractVersion
}

// ReadCurrent finds what c has: the referenced InfrastructureCluster and ControlPlane (and the
// machine template the latter references) and its topology MachineDeployments; cpTemplate is the
// class's control-plane template, whose kind names the control plane's.
func ReadCurrent(ctx context.Context, r client.Reader, c *clusterv1.Cluster, cpTemplate *unstructured.Unstructured) (*Current, error) {
	cpGK := schema.FromAPIVersionAndKind(cpTemplate.GetAPIVersion(), strings.TrimSuffix(cpTemplate.GetKind(), "Template")).GroupKind()
	v, err := contract.GetContractVersion(ctx, r, cpGK)
	if err != nil {
		return nil, fmt.Errorf("control plane kind %s: %w", cpGK, err)
	}
	cur := &Current{Names: desired.Current{MachineDeployments: map[string]desired.CurrentWorker{}},
		MachineDeployments: map[string]*clusterv1.MachineDeployment{}, ControlPlaneContract: v.Contract}
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
	return cur, nil
}
