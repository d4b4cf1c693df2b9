package move

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Paused says how the source objects were paused.
type Paused struct {
	// Clusters and Objects are the Clusters (spec.paused) and other Cluster API objects
	// (the paused annotation) the move paused, in this run or an interrupted earlier one.
	Clusters, Objects int
	// Before names the Clusters and objects the user had paused before the move; their
	// copies stay paused.
	Before []string
}

// PauseSource stops every provider in the source from acting on plan's objects, so none
// of them changes while it is copied and none cleans up infrastructure when the objects
// are deleted: Clusters get spec.paused=true, the other objects of the moved kinds the
// cluster.x-k8s.io/paused annotation (the providers honour both), each with
// PausedByMoveAnnotation, which the copies carry along so that the target resumes what
// the move paused and nothing else. Objects are updated in place with what the source
// returned. Secrets and ConfigMaps have no controller to pause.
func PauseSource(ctx context.Context, source client.Client, plan *Plan) (Paused, error) {
	var p Paused
	for _, o := range plan.Objects {
		if _, discovered := plan.CRDs[o.GroupVersionKind()]; !discovered || plan.Global[o.GetUID()] {
			continue // a Secret or ConfigMap, or shared by other Clusters
		}
		pausedByMove := o.GetAnnotations()[PausedByMoveAnnotation] != ""
		var patch map[string]any
		if isCluster(o) {
			if paused, _, _ := unstructured.NestedBool(o.Object, "spec", "paused"); paused {
				p.count(o, pausedByMove)
				continue
			}
			patch = map[string]any{
				"metadata": map[string]any{"annotations": map[string]any{PausedByMoveAnnotation: "true"}},
				"spec":     map[string]any{"paused": true},
			}
		} else {
			if _, paused := o.GetAnnotations()[clusterv1.PausedAnnotation]; paused {
				p.count(o, pausedByMove)
				continue
			}
			patch = map[string]any{"metadata": map[string]any{"annotations": map[string]any{
				clusterv1.PausedAnnotation: "", PausedByMoveAnnotation: "true"}}}
		}
		if err := mergePatch(ctx, source, o, patch); err != nil {
			return p, fmt.Errorf("pausing %s in the source: %w", describe(o), err)
		}
		p.count(o, true)
	}
	return p, nil
}

func (p *Paused) count(o *unstructured.Unstructured, byMove bool) {
	switch {
	case !byMove:
		p.Before = append(p.Before, describe(o))
	case isCluster(o):
		p.Clusters++
	default:
		p.Objects++
	}
}

// ResumeCopies undoes in the target what PauseSource did, on the copies that carry
// PausedByMoveAnnotation: the other objects first and the Clusters last, so a Cluster
// resumes once everything it owns can be reconciled. It returns how many Clusters and
// other objects it resumed; copies are updated in place.
func ResumeCopies(ctx context.Context, target client.Client, copies []*unstructured.Unstructured) (clusters, objects int, err error) {
	for _, clustersPass := range []bool{false, true} {
		for _, c := range copies {
			if isCluster(c) != clustersPass || c.GetAnnotations()[PausedByMoveAnnotation] == "" {
				continue
			}
			annotations := map[string]any{PausedByMoveAnnotation: nil}
			patch := map[string]any{"metadata": map[string]any{"annotations": annotations}}
			if clustersPass {
				patch["spec"] = map[string]any{"paused": false}
				clusters++
			} else {
				annotations[clusterv1.PausedAnnotation] = nil
				objects++
			}
			if err := mergePatch(ctx, target, c, patch); err != nil {
				return clusters, objects, fmt.Errorf("resuming %s in the target: %w", describe(c), err)
			}
		}
	}
	return clusters, objects, nil
}

// mergePatch applies patch to o as a JSON merge patch, which needs no resourceVersion:
// it changes only the fields it names, whatever else changed since o was read.
func mergePatch(ctx context.Context, c client.Client, o *unstructured.Unstructured, patch map[string]any) error {
	data, err := json.Marshal(patch)
	if err != nil {
		return fmt.Errorf("encoding patch: %w", err)
	}
	return c.Patch(ctx, o, client.RawPatch(types.MergePatchType, data))
}
