package clusterstate

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/topology/desired"
	"capstan.dev/core/internal/topology/patches"
	"capstan.dev/core/internal/topology/upgrade"
	"capstan.dev/core/internal/topology/variables"
)

// DefaultedCluster is a copy of c whose variables and overrides carry the class's defaults
// (upstream's webhook writes them; here they are applied in memory on every computation).
func DefaultedCluster(c *clusterv1.Cluster, defs map[string]variables.Definition) *clusterv1.Cluster {
	c = c.DeepCopy()
	t := &c.Spec.Topology
	t.Variables = variables.Default(t.Variables, defs)
	t.ControlPlane.Variables.Overrides = variables.DefaultOverrides(t.ControlPlane.Variables.Overrides, defs)
	for i := range t.Workers.MachineDeployments {
		md := &t.Workers.MachineDeployments[i]
		md.Variables.Overrides = variables.DefaultOverrides(md.Variables.Overrides, defs)
	}
	for i := range t.Workers.MachinePools {
		mp := &t.Workers.MachinePools[i]
		mp.Variables.Overrides = variables.DefaultOverrides(mp.Variables.Overrides, defs)
	}
	return c
}

// Validate checks the topology against its class as upstream's Cluster webhook does: the
// variables (after defaulting) and overrides match the schemas, and each worker names a class the
// ClusterClass defines. Each error names the field path.
func Validate(ctx context.Context, c *clusterv1.Cluster, cc *clusterv1.ClusterClass, defs map[string]variables.Definition) field.ErrorList {
	t := &c.Spec.Topology
	path := field.NewPath("spec", "topology")
	errs := variables.Validate(ctx, path.Child("variables"), variables.Default(t.Variables, defs), defs)
	if listed := cc.Spec.KubernetesVersions; len(listed) > 0 && !upgrade.IsListed(listed, t.Version) {
		errs = append(errs, field.Invalid(path.Child("version"), t.Version, fmt.Sprintf(
			"must be one of ClusterClass %s's spec.kubernetesVersions (%s): use one of them, or add it to the class", cc.Name, strings.Join(listed, ", "))))
	}
	errs = append(errs, variables.ValidateOverrides(ctx, path.Child("controlPlane", "variables", "overrides"),
		variables.DefaultOverrides(t.ControlPlane.Variables.Overrides, defs), defs)...)
	mdClasses, mpClasses := map[string]bool{}, map[string]bool{}
	for _, md := range cc.Spec.Workers.MachineDeployments {
		mdClasses[md.Class] = true
	}
	for _, mp := range cc.Spec.Workers.MachinePools {
		mpClasses[mp.Class] = true
	}
	for _, md := range t.Workers.MachineDeployments {
		p := path.Child("workers", "machineDeployments").Key(md.Name)
		if !mdClasses[md.Class] {
			errs = append(errs, field.Invalid(p.Child("class"), md.Class, "ClusterClass "+cc.Name+" has no such MachineDeployment class"))
		}
		errs = append(errs, variables.ValidateOverrides(ctx, p.Child("variables", "overrides"), variables.DefaultOverrides(md.Variables.Overrides, defs), defs)...)
	}
	for _, mp := range t.Workers.MachinePools {
		p := path.Child("workers", "machinePools").Key(mp.Name)
		if !mpClasses[mp.Class] {
			errs = append(errs, field.Invalid(p.Child("class"), mp.Class, "ClusterClass "+cc.Name+" has no such MachinePool class"))
		}
		errs = append(errs, variables.ValidateOverrides(ctx, p.Child("variables", "overrides"), variables.DefaultOverrides(mp.Variables.Overrides, defs), defs)...)
	}
	return errs
}

// Compute returns the desired state of c (whose topology Validate accepted) from its class, the
// class's templates and what exists: the class's variable defaults applied, its patches run.
// random returns the random part of generated names (nil: desired.RandomSuffix). ext calls the
// Runtime Extensions of external patches (nil: a class with one is an error).
func Compute(ctx context.Context, ext patches.ExternalPatcher, c *clusterv1.Cluster, cc *clusterv1.ClusterClass, defs map[string]variables.Definition,
	templates desired.Templates, cur *Current, versions desired.Versions, random func() string) (*desired.State, error) {
	withDefaults := DefaultedCluster(c, defs)
	return desired.Compute(&desired.Input{
		Cluster: withDefaults, Class: cc, Templates: templates, Current: cur.Names,
		ControlPlaneContract: cur.ControlPlaneContract, Random: random, Versions: versions,
		Patch: func(t *desired.Templates, n *desired.Names, v desired.Versions) error {
			return patches.ApplyWith(ctx, ext, withDefaults, cc, t, n, v)
		},
	})
}
