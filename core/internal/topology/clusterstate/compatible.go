package clusterstate

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/topology/desired"
)

// CheckCompatible reports each object c has whose kind (group and kind) the class's templates
// would change, as upstream refuses it: at admission when spec.topology.classRef changes
// (ClusterClassesAreCompatible) and in its reconciler before anything is applied (objects and
// template copies must stay compatible). A class change may change what the templates hold, never
// their kinds: the InfrastructureCluster and the ControlPlane are updated in place, and a second
// one of another kind would be an orphan the Cluster never references. tpls are the class's
// templates as ReadTemplates read them (workers' keyed by class).
func CheckCompatible(c *clusterv1.Cluster, cc *clusterv1.ClusterClass, tpls desired.Templates, cur *Current) field.ErrorList {
	var errs field.ErrorList
	classRef := field.NewPath("spec", "topology", "classRef")
	change := func(path *field.Path, what, classField string, has, gets schema.GroupKind) {
		if has.Empty() || gets == has {
			return
		}
		errs = append(errs, field.Forbidden(path, fmt.Sprintf(
			"ClusterClass %s would make %s a %s, but it is a %s: a class change may change templates, not their kinds; "+
				"use a class whose %s is of the kind this Cluster was built with", cc.Name, what, describe(gets), describe(has), classField)))
	}
	if c.Spec.InfrastructureRef.IsDefined() {
		change(classRef, "the InfrastructureCluster (spec.infrastructureRef)", "spec.infrastructure.templateRef",
			c.Spec.InfrastructureRef.GroupKind(), kindOfTemplate(tpls.InfrastructureCluster))
	}
	if c.Spec.ControlPlaneRef.IsDefined() {
		change(classRef, "the ControlPlane (spec.controlPlaneRef)", "spec.controlPlane.templateRef",
			c.Spec.ControlPlaneRef.GroupKind(), kindOfTemplate(tpls.ControlPlane))
	}
	switch has := cur.ControlPlaneMachineInfrastructure; {
	case !has.Empty() && tpls.ControlPlaneMachineInfrastructure == nil:
		errs = append(errs, field.Forbidden(classRef, fmt.Sprintf("ClusterClass %s has no spec.controlPlane.machineInfrastructure, "+
			"but this Cluster's control plane is Machine-based (a %s): use a class with a machine template of that kind", cc.Name, describe(has))))
	case !has.Empty():
		change(classRef, "the control plane's machine template", "spec.controlPlane.machineInfrastructure.templateRef",
			has, templateKind(tpls.ControlPlaneMachineInfrastructure))
	}
	for _, w := range workerKinds(c, tpls, cur) {
		for i, part := range []string{"bootstrap", "infrastructure"} {
			change(w.path, w.objects[i], w.classField+"."+part+".templateRef", w.has[i], w.gets[i])
		}
	}
	return errs
}

// workerKind is what CheckCompatible compares for an existing MachineDeployment or MachinePool:
// the kinds of its bootstrap and infrastructure references and those its class would generate.
type workerKind struct {
	path       *field.Path
	classField string
	objects    [2]string // what the two references are, for messages
	has, gets  [2]schema.GroupKind
}

// workerKinds lists the existing workers of c whose class's templates were read: a MachineDeployment
// references template copies (the templates' kinds), a MachinePool objects (without "Template").
func workerKinds(c *clusterv1.Cluster, tpls desired.Templates, cur *Current) []workerKind {
	type entry struct {
		name, class string
		spec        *clusterv1.MachineSpec
	}
	var mds, mps []entry
	for _, mdt := range c.Spec.Topology.Workers.MachineDeployments {
		if md := cur.MachineDeployments[mdt.Name]; md != nil {
			mds = append(mds, entry{mdt.Name, mdt.Class, &md.Spec.Template.Spec})
		}
	}
	for _, mpt := range c.Spec.Topology.Workers.MachinePools {
		if mp := cur.MachinePools[mpt.Name]; mp != nil {
			mps = append(mps, entry{mpt.Name, mpt.Class, &mp.Spec.Template.Spec})
		}
	}
	var out []workerKind
	for _, set := range []struct {
		list, kind string
		entries    []entry
		tpls       map[string]desired.WorkerTemplates
		objects    [2]string
		kindOf     func(*unstructured.Unstructured) schema.GroupKind
	}{
		{"machineDeployments", "MachineDeployment", mds, tpls.MachineDeployments, [2]string{"bootstrap template", "infrastructure template"}, templateKind},
		{"machinePools", "MachinePool", mps, tpls.MachinePools, [2]string{"BootstrapConfig", "InfraMachinePool"}, kindOfTemplate},
	} {
		for _, e := range set.entries {
			t := set.tpls[e.class]
			if t.Bootstrap == nil || t.Infrastructure == nil {
				continue
			}
			out = append(out, workerKind{path: field.NewPath("spec", "topology", "workers", set.list).Key(e.name),
				classField: "spec.workers." + set.list + "[" + e.class + "]",
				objects:    [2]string{set.kind + " " + e.name + "'s " + set.objects[0], set.kind + " " + e.name + "'s " + set.objects[1]},
				has:        [2]schema.GroupKind{e.spec.Bootstrap.ConfigRef.GroupKind(), e.spec.InfrastructureRef.GroupKind()},
				gets:       [2]schema.GroupKind{set.kindOf(t.Bootstrap), set.kindOf(t.Infrastructure)}})
		}
	}
	return out
}

func templateKind(tpl *unstructured.Unstructured) schema.GroupKind {
	return tpl.GroupVersionKind().GroupKind()
}

// describe names a kind with its group: "DockerCluster (infrastructure.cluster.x-k8s.io)".
func describe(gk schema.GroupKind) string { return gk.Kind + " (" + gk.Group + ")" }
