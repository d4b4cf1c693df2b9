package desired

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/conversion"
	"capstan.dev/contracts/owner"
)

// notCopied are the template annotations a copy does not get: kubectl's last-applied copy of the
// template, and the conversion data of the template's other API version (what a client of that
// version wrote to the template: carried into a copy, it would be read back as if written to the
// copy, and it counts against the copy's annotation size limit).
var notCopied = []string{corev1.LastAppliedConfigAnnotation, conversion.DataAnnotation}

// Compute returns the desired state of in.Cluster: the class's templates are copied (one set per
// MachineDeployment and MachinePool topology entry), patched by in.Patch, and the generated
// objects built from the copies.
func Compute(in *Input) (*State, error) {
	random := in.Random
	if random == nil {
		random = RandomSuffix
	}
	tpls, err := copyTemplates(in)
	if err != nil {
		return nil, err
	}
	names, err := computeNames(in, random)
	if err != nil {
		return nil, err
	}
	if in.Patch != nil {
		if err := in.Patch(tpls, names, in.Versions); err != nil {
			return nil, err
		}
	}
	s := &State{}
	if err := computeInfrastructureCluster(in, tpls, s, names.InfrastructureCluster); err != nil {
		return nil, err
	}
	if err := computeControlPlane(in, tpls, s, names); err != nil {
		return nil, err
	}
	s.ControlPlaneHealthCheck = controlPlaneHealthCheck(in, s)
	for _, mdt := range in.Cluster.Spec.Topology.Workers.MachineDeployments {
		md, err := computeMachineDeployment(in, tpls, mdt, names.MachineDeployments[mdt.Name])
		if err != nil {
			return nil, err
		}
		s.MachineDeployments = append(s.MachineDeployments, *md)
	}
	for _, mpt := range in.Cluster.Spec.Topology.Workers.MachinePools {
		mp, err := computeMachinePool(in, tpls, mpt, names.MachinePools[mpt.Name])
		if err != nil {
			return nil, err
		}
		s.MachinePools = append(s.MachinePools, *mp)
	}
	return s, nil
}

// copyTemplates deep-copies the class's templates, once per MachineDeployment and MachinePool
// topology entry for the workers' ones, so that patching never touches what was read.
func copyTemplates(in *Input) (*Templates, error) {
	src := &in.Templates
	if src.InfrastructureCluster == nil || src.ControlPlane == nil {
		return nil, fmt.Errorf("ClusterClass %s: the infrastructure and control-plane templates must be read before the desired state is computed", in.Class.Name)
	}
	out := &Templates{
		InfrastructureCluster: src.InfrastructureCluster.DeepCopy(),
		ControlPlane:          src.ControlPlane.DeepCopy(),
	}
	if src.ControlPlaneMachineInfrastructure != nil {
		out.ControlPlaneMachineInfrastructure = src.ControlPlaneMachineInfrastructure.DeepCopy()
	}
	workers := in.Cluster.Spec.Topology.Workers
	var mds, mps []workerEntry
	for _, mdt := range workers.MachineDeployments {
		mds = append(mds, workerEntry{name: mdt.Name, class: mdt.Class})
	}
	for _, mpt := range workers.MachinePools {
		mps = append(mps, workerEntry{name: mpt.Name, class: mpt.Class})
	}
	var err error
	if out.MachineDeployments, err = copyWorkerTemplates(in.Class.Name, "MachineDeployment", "machineDeployments", src.MachineDeployments, mds); err != nil {
		return nil, err
	}
	if out.MachinePools, err = copyWorkerTemplates(in.Class.Name, "MachinePool", "machinePools", src.MachinePools, mps); err != nil {
		return nil, err
	}
	return out, nil
}

// workerEntry is a worker topology entry's topology name and class.
type workerEntry struct{ name, class string }

// copyWorkerTemplates copies each entry's class templates (keyed by class in src) under the
// entry's topology name; an entry whose class was not read is refused with its field path.
func copyWorkerTemplates(className, kind, listField string, src map[string]WorkerTemplates, entries []workerEntry) (map[string]WorkerTemplates, error) {
	out := map[string]WorkerTemplates{}
	path := field.NewPath("spec", "topology", "workers", listField)
	for _, e := range entries {
		t, ok := src[e.class]
		if !ok || t.Bootstrap == nil || t.Infrastructure == nil {
			return nil, field.Invalid(path.Key(e.name).Child("class"), e.class,
				fmt.Sprintf("ClusterClass %s has no %s class of that name (or its templates were not read)", className, kind))
		}
		out[e.name] = WorkerTemplates{Bootstrap: t.Bootstrap.DeepCopy(), Infrastructure: t.Infrastructure.DeepCopy()}
	}
	return out, nil
}

// computeNames keeps the current names and renders the class's naming templates for the others.
func computeNames(in *Input, random func() string) (*Names, error) {
	c, cc := in.Cluster, in.Class
	n := &Names{InfrastructureCluster: in.Current.InfrastructureClusterName, ControlPlane: in.Current.ControlPlaneName,
		MachineDeployments: map[string]CurrentWorker{}, MachinePools: map[string]CurrentWorker{}}
	var err error
	if n.InfrastructureCluster == "" {
		if n.InfrastructureCluster, err = RenderName(cc.Spec.Infrastructure.Naming.Template, DefaultInfrastructureClusterNaming, c.Name, "", random); err != nil {
			return nil, fmt.Errorf("ClusterClass %s spec.infrastructure.naming.template: %w", cc.Name, err)
		}
	}
	if n.ControlPlane == "" {
		if n.ControlPlane, err = RenderName(cc.Spec.ControlPlane.Naming.Template, DefaultControlPlaneNaming, c.Name, "", random); err != nil {
			return nil, fmt.Errorf("ClusterClass %s spec.controlPlane.naming.template: %w", cc.Name, err)
		}
	}
	for _, mdt := range c.Spec.Topology.Workers.MachineDeployments {
		name := in.Current.MachineDeployments[mdt.Name].Name
		if name == "" {
			class := findMachineDeploymentClass(cc, mdt.Class)
			if class == nil {
				return nil, fmt.Errorf("spec.topology.workers.machineDeployments[%s].class: ClusterClass %s has no MachineDeployment class %q", mdt.Name, cc.Name, mdt.Class)
			}
			if name, err = RenderName(class.Naming.Template, DefaultMachineDeploymentNaming, c.Name, mdt.Name, random); err != nil {
				return nil, fmt.Errorf("ClusterClass %s spec.workers.machineDeployments[%s].naming.template: %w", cc.Name, class.Class, err)
			}
		}
		n.MachineDeployments[mdt.Name] = CurrentWorker{Name: name}
	}
	for _, mpt := range c.Spec.Topology.Workers.MachinePools {
		if n.MachinePools[mpt.Name], err = machinePoolNames(in, mpt, random); err != nil {
			return nil, err
		}
	}
	templateCopyNames(in, n, random)
	return n, nil
}

// templateCopyNames keeps the current template copies' names and generates the missing ones: the
// control plane's machine template copy and each MachineDeployment's bootstrap and
// infrastructure template copies.
func templateCopyNames(in *Input, n *Names, random func() string) {
	c := in.Cluster
	if in.Templates.ControlPlaneMachineInfrastructure != nil {
		n.ControlPlaneMachineInfrastructure = orNew(in.Current.ControlPlaneMachineInfrastructureName, c.Name, "", random)
	}
	for _, mdt := range c.Spec.Topology.Workers.MachineDeployments {
		cur, md := in.Current.MachineDeployments[mdt.Name], n.MachineDeployments[mdt.Name]
		md.BootstrapName = orNew(cur.BootstrapName, c.Name, mdt.Name, random)
		md.InfrastructureName = orNew(cur.InfrastructureName, c.Name, mdt.Name, random)
		n.MachineDeployments[mdt.Name] = md
	}
}

// computeInfrastructureCluster generates the InfrastructureCluster from the class's template.
func computeInfrastructureCluster(in *Input, tpls *Templates, s *State, name string) error {
	obj, err := objectFromTemplate(tpls.InfrastructureCluster, in.Cluster, name)
	if err != nil {
		return err
	}
	s.InfrastructureCluster = obj
	s.InfrastructureRef = refTo(obj)
	return nil
}

// objectFromTemplate generates an object (InfrastructureCluster, ControlPlane) from a template:
// the kind without its Template suffix, spec from spec.template.spec, labels and annotations from
// spec.template.metadata plus the topology's marks.
func objectFromTemplate(tpl *unstructured.Unstructured, c *clusterv1.Cluster, name string) (*unstructured.Unstructured, error) {
	what := fmt.Sprintf("%s %s", tpl.GetKind(), tpl.GetName())
	if !strings.HasSuffix(tpl.GetKind(), "Template") {
		return nil, fmt.Errorf("%s: a template kind must end in Template (the generated object's kind is the template's without it)", what)
	}
	spec, _, err := unstructured.NestedMap(tpl.Object, "spec", "template", "spec")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.template.spec: %w", what, err)
	}
	labels, _, err := unstructured.NestedStringMap(tpl.Object, "spec", "template", "metadata", "labels")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.template.metadata.labels: %w", what, err)
	}
	annotations, _, err := unstructured.NestedStringMap(tpl.Object, "spec", "template", "metadata", "annotations")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.template.metadata.annotations: %w", what, err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{}}
	obj.SetAPIVersion(tpl.GetAPIVersion())
	obj.SetKind(ObjectKind(tpl.GetAPIVersion(), tpl.GetKind()).Kind)
	obj.SetNamespace(c.Namespace)
	obj.SetName(name)
	if spec == nil {
		spec = map[string]any{}
	}
	obj.Object["spec"] = spec
	obj.SetLabels(topologyLabels(labels, c.Name))
	obj.SetAnnotations(clonedFrom(annotations, tpl))
	obj.SetOwnerReferences([]metav1.OwnerReference{owner.ClusterReference(c)})
	return obj, nil
}

// ObjectKind is the kind, at the template's API version, of the objects generated from a template
// of templateKind (an InfrastructureCluster, a ControlPlane, a MachinePool's BootstrapConfig or
// InfraMachinePool): the template's kind without "Template".
func ObjectKind(apiVersion, templateKind string) schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(apiVersion, strings.TrimSuffix(templateKind, "Template"))
}

// templateCopy copies a class template into the Cluster's namespace under name, with the
// topology's labels (plus extra) and the cloned-from annotations.
func templateCopy(tpl *unstructured.Unstructured, c *clusterv1.Cluster, name string, extra map[string]string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{}}
	obj.SetAPIVersion(tpl.GetAPIVersion())
	obj.SetKind(tpl.GetKind())
	obj.SetNamespace(c.Namespace)
	obj.SetName(name)
	if spec, ok := tpl.Object["spec"].(map[string]any); ok {
		obj.Object["spec"] = (&unstructured.Unstructured{Object: spec}).DeepCopy().Object
	}
	labels := topologyLabels(tpl.GetLabels(), c.Name)
	for k, v := range extra {
		labels[k] = v
	}
	obj.SetLabels(labels)
	annotations := clonedFrom(tpl.GetAnnotations(), tpl)
	for _, a := range notCopied {
		delete(annotations, a)
	}
	obj.SetAnnotations(annotations)
	obj.SetOwnerReferences([]metav1.OwnerReference{owner.ClusterReference(c)})
	return obj
}

// topologyLabels returns a copy of labels with the cluster-name and topology-owned labels.
func topologyLabels(labels map[string]string, clusterName string) map[string]string {
	out := map[string]string{}
	for k, v := range labels {
		out[k] = v
	}
	out[clusterv1.ClusterNameLabel] = clusterName
	out[clusterv1.ClusterTopologyOwnedLabel] = ""
	return out
}

// clonedFrom returns a copy of annotations recording the template an object was generated from.
func clonedFrom(annotations map[string]string, tpl *unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	for k, v := range annotations {
		out[k] = v
	}
	out[clusterv1.TemplateClonedFromNameAnnotation] = tpl.GetName()
	out[clusterv1.TemplateClonedFromGroupKindAnnotation] = tpl.GroupVersionKind().GroupKind().String()
	return out
}

// refTo is a contract reference (group, kind, name: no version) to obj.
func refTo(obj *unstructured.Unstructured) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: obj.GroupVersionKind().Group, Kind: obj.GetKind(), Name: obj.GetName()}
}

// contractRef is refTo in the contract package's shape, for writing references into provider objects.
func contractRef(obj *unstructured.Unstructured) contract.ObjectReference {
	return contract.ObjectReference{APIGroup: obj.GroupVersionKind().Group, Kind: obj.GetKind(), Name: obj.GetName(), APIVersion: obj.GetAPIVersion()}
}

// mergeMetadata merges class and topology metadata, the topology winning on clashes; the
// upgrade-sequencing annotations users set in topology metadata are never propagated.
func mergeMetadata(class, topology clusterv1.ObjectMeta) (labels, annotations map[string]string) {
	labels, annotations = map[string]string{}, map[string]string{}
	for _, m := range []clusterv1.ObjectMeta{class, topology} {
		for k, v := range m.Labels {
			labels[k] = v
		}
		for k, v := range m.Annotations {
			annotations[k] = v
		}
	}
	delete(annotations, clusterv1.ClusterTopologyHoldUpgradeSequenceAnnotation)
	delete(annotations, clusterv1.ClusterTopologyDeferUpgradeAnnotation)
	return labels, annotations
}
