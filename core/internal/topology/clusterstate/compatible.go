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
	workers := field.NewPath("spec", "topology", "workers")
	for _, mdt := range c.Spec.Topology.Workers.MachineDeployments {
		md, t := cur.MachineDeployments[mdt.Name], tpls.MachineDeployments[mdt.Class]
		if md == nil || t.Bootstrap == nil || t.Infrastructure == nil {
			continue
		}
		path, classField := workers.Child("machineDeployments").Key(mdt.Name), "spec.workers.machineDeployments["+mdt.Class+"]"
		spec := md.Spec.Template.Spec
		change(path, "MachineDeployment "+mdt.Name+"'s bootstrap template", classField+".bootstrap.templateRef",
			spec.Bootstrap.ConfigRef.GroupKind(), templateKind(t.Bootstrap))
		change(path, "MachineDeployment "+mdt.Name+"'s infrastructure template", classField+".infrastructure.templateRef",
			spec.InfrastructureRef.GroupKind(), templateKind(t.Infrastructure))
	}
	for _, mpt := range c.Spec.Topology.Workers.MachinePools {
		mp, t := cur.MachinePools[mpt.Name], tpls.MachinePools[mpt.Class]
		if mp == nil || t.Bootstrap == nil || t.Infrastructure == nil {
			continue
		}
		path, classField := workers.Child("machinePools").Key(mpt.Name), "spec.workers.machinePools["+mpt.Class+"]"
		spec := mp.Spec.Template.Spec
		change(path, "MachinePool "+mpt.Name+"'s BootstrapConfig", classField+".bootstrap.templateRef",
			spec.Bootstrap.ConfigRef.GroupKind(), kindOfTemplate(t.Bootstrap))
		change(path, "MachinePool "+mpt.Name+"'s InfraMachinePool", classField+".infrastructure.templateRef",
			spec.InfrastructureRef.GroupKind(), kindOfTemplate(t.Infrastructure))
	}
	return errs
}

func templateKind(tpl *unstructured.Unstructured) schema.GroupKind {
	return tpl.GroupVersionKind().GroupKind()
}

// describe names a kind with its group: "DockerCluster (infrastructure.cluster.x-k8s.io)".
func describe(gk schema.GroupKind) string { return gk.Kind + " (" + gk.Group + ")" }
