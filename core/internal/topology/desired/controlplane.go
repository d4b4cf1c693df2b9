package desired

import (
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
)

// computeControlPlane generates the ControlPlane from the class's template and, for a machine-based
// control plane, the copy of its InfraMachineTemplate the ControlPlane references.
func computeControlPlane(in *Input, tpls *Templates, s *State, names *Names) error {
	c := in.Cluster
	name := names.ControlPlane
	obj, labels, annotations, err := controlPlaneObject(c, in.Class, tpls.ControlPlane, name)
	if err != nil {
		return err
	}
	topo := &c.Spec.Topology.ControlPlane
	cp := contract.ControlPlane()
	if err := cp.Version().Set(obj, in.Versions.ForControlPlane(c)); err != nil {
		return fmt.Errorf("ControlPlane %s: %w", name, err)
	}
	if topo.Replicas != nil {
		if err := cp.Replicas().Set(obj, int64(*topo.Replicas)); err != nil {
			return fmt.Errorf("ControlPlane %s: %w", name, err)
		}
	}
	if !topo.Rollout.After.IsZero() {
		if err := unstructured.SetNestedField(obj.Object, topo.Rollout.After.UTC().Format(time.RFC3339), "spec", "rollout", "after"); err != nil {
			return fmt.Errorf("ControlPlane %s spec.rollout.after: %w", name, err)
		}
	}
	s.ControlPlane = obj
	s.ControlPlaneRef = refTo(obj)
	if tpls.ControlPlaneMachineInfrastructure == nil {
		return nil
	}
	return computeControlPlaneMachines(in, tpls, s, names.ControlPlaneMachineInfrastructure, labels, annotations)
}

// controlPlaneObject generates the ControlPlane from tpl with its metadata: the template's, the
// topology's marks, then the class's and the topology's controlPlane.metadata (labels and
// annotations is the latter merge, which the control plane's Machines get too).
func controlPlaneObject(c *clusterv1.Cluster, cc *clusterv1.ClusterClass, tpl *unstructured.Unstructured, name string) (
	obj *unstructured.Unstructured, labels, annotations map[string]string, err error) {
	if obj, err = objectFromTemplate(tpl, c, name); err != nil {
		return nil, nil, nil, err
	}
	labels, annotations = mergeMetadata(cc.Spec.ControlPlane.Metadata, c.Spec.Topology.ControlPlane.Metadata)
	obj.SetLabels(mergeInto(obj.GetLabels(), labels))
	obj.SetAnnotations(mergeInto(obj.GetAnnotations(), annotations))
	return obj, labels, annotations, nil
}

// computeControlPlaneMachines copies the control plane's InfraMachineTemplate and writes the
// ControlPlane's machine template: the copy's reference, the merged metadata and, under the
// v1beta2 contract, the class's or topology's deletion timeouts, readiness gates and taints.
func computeControlPlaneMachines(in *Input, tpls *Templates, s *State, name string, labels, annotations map[string]string) error {
	c, cc := in.Cluster, in.Class
	s.ControlPlaneMachineInfrastructure = templateCopy(tpls.ControlPlaneMachineInfrastructure, c, name, nil)
	obj := s.ControlPlane
	v := in.ControlPlaneContract
	if v == "" {
		v = contract.V1Beta2
	}
	fail := func(err error) error { return fmt.Errorf("ControlPlane %s machine template: %w", obj.GetName(), err) }
	if err := contract.ControlPlane().MachineTemplateInfrastructureRef(v).Set(obj, contractRef(s.ControlPlaneMachineInfrastructure)); err != nil {
		return fail(err)
	}
	if err := setMetadata(obj, labels, annotations, "spec", "machineTemplate", "metadata"); err != nil {
		return fail(err)
	}
	if v != contract.V1Beta2 {
		return nil // v1beta1 control planes keep timeouts as durations elsewhere: not generated
	}
	topo, class := &c.Spec.Topology.ControlPlane, &cc.Spec.ControlPlane
	deletion := class.Deletion
	overrideTimeouts(&deletion, topo.Deletion)
	fields := map[string]any{"deletion": deletion, "readinessGates": class.ReadinessGates, "taints": class.Taints}
	if topo.ReadinessGates != nil {
		fields["readinessGates"] = topo.ReadinessGates
	}
	if topo.Taints != nil {
		fields["taints"] = topo.Taints
	}
	for _, k := range []string{"deletion", "readinessGates", "taints"} {
		if err := setJSON(obj, fields[k], "spec", "machineTemplate", "spec", k); err != nil {
			return fail(err)
		}
	}
	return nil
}

// overrideTimeouts replaces each timeout of d that the topology sets.
func overrideTimeouts(d *clusterv1.MachineDeletionSpec, topo clusterv1.MachineDeletionSpec) {
	if topo.NodeDrainTimeoutSeconds != nil {
		d.NodeDrainTimeoutSeconds = topo.NodeDrainTimeoutSeconds
	}
	if topo.NodeVolumeDetachTimeoutSeconds != nil {
		d.NodeVolumeDetachTimeoutSeconds = topo.NodeVolumeDetachTimeoutSeconds
	}
	if topo.NodeDeletionTimeoutSeconds != nil {
		d.NodeDeletionTimeoutSeconds = topo.NodeDeletionTimeoutSeconds
	}
}

// setJSON writes v (a typed value) at path as its JSON form; a value that encodes empty is not written.
func setJSON(obj *unstructured.Unstructured, v any, path ...string) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var out any // integers decode as int64, as unstructured values must hold them
	if err := utiljson.Unmarshal(raw, &out); err != nil {
		return err
	}
	switch o := out.(type) {
	case nil:
		return nil
	case map[string]any:
		if len(o) == 0 {
			return nil
		}
	case []any:
		if len(o) == 0 {
			return nil
		}
	}
	return unstructured.SetNestedField(obj.Object, out, path...)
}

// setMetadata writes non-empty labels and annotations under path (e.g. spec.machineTemplate.metadata).
func setMetadata(obj *unstructured.Unstructured, labels, annotations map[string]string, path ...string) error {
	if len(labels) > 0 {
		if err := unstructured.SetNestedStringMap(obj.Object, labels, append(path, "labels")...); err != nil {
			return err
		}
	}
	if len(annotations) > 0 {
		return unstructured.SetNestedStringMap(obj.Object, annotations, append(path, "annotations")...)
	}
	return nil
}

// mergeInto returns base with over's entries added (over wins).
func mergeInto(base, over map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}
