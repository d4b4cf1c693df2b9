package editplan

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/controller/machineset"
	"capstan.dev/core/internal/mdrollout"
)

// planMachineSet dry-runs the edit of a MachineSet and plans its scaling: a MachineSet never
// replaces its Machines (a template change applies to the Machines it creates from then on), it
// only creates or deletes Machines, in its deletion order, to reach spec.replicas.
func planMachineSet(ctx context.Context, c client.Client, d Document) (*ObjectPlan, error) {
	current, edited := &clusterv1.MachineSet{}, &clusterv1.MachineSet{}
	found, err := dryRunUpdate(ctx, c, d, current, edited)
	if err != nil {
		return nil, err
	}
	p := &ObjectPlan{Source: d.Source, Kind: "MachineSet", Object: objectName(d.Object)}
	if !found {
		p.Outcome = Create
		p.Notes = []string{"not found: `kubectl apply` creates it; no existing Machine is replaced"}
		return p, nil
	}
	if ref := metav1.GetControllerOf(current); ref != nil && ref.Kind == "MachineDeployment" {
		p.Notes = append(p.Notes, fmt.Sprintf("controlled by MachineDeployment %s: it sets this MachineSet's replicas and template again; edit the MachineDeployment instead", ref.Name))
	}
	if mdrollout.TemplateHash(&current.Spec.Template) != mdrollout.TemplateHash(&edited.Spec.Template) {
		p.Notes = append(p.Notes, "the template's rollout fields change: a MachineSet does not replace its Machines, only the Machines it creates from now on have the new template")
	}
	p.InPlace = inPlaceChanges(&current.Spec.Template, &edited.Spec.Template)
	machines, err := machinesByController(ctx, c, current.Namespace, current.Spec.ClusterName)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Source, err)
	}
	r := scaleOnce(machineset.DesiredReplicas(edited.Spec.Replicas, edited.Annotations), nil,
		newSimSet(edited, machines[current.UID], edited.Spec.Deletion.Order), nil)
	p.Steps, p.Removed, p.Added = r.steps, r.removed, r.created
	p.Outcome = outcome(p)
	return p, nil
}
