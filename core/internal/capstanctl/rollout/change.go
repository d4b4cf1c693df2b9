package rollout

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Restart sets spec.rollout.after to now, so the controller replaces every Machine created
// before it. It refuses a paused object (nothing would roll out until it is resumed) and one
// whose spec.rollout.after is still in the future (a restart is already scheduled: upstream
// refuses it too, rather than silently moving it earlier). It returns the line to print.
func Restart(ctx context.Context, c client.Client, r Ref, now time.Time) (string, error) {
	u, err := get(ctx, c, r)
	if err != nil {
		return "", err
	}
	s, err := stateOf(r, u)
	if err != nil {
		return "", err
	}
	if s.PausedBy != "" {
		return "", fmt.Errorf("can't restart paused %s (paused by %s): %s first", r, s.PausedBy, unpauseHint(r, s))
	}
	if s.RolloutAfter != nil && s.RolloutAfter.After(now) {
		return "", fmt.Errorf("can't restart %s: spec.rollout.after already schedules a rollout at %s; remove it first",
			r, s.RolloutAfter.UTC().Format(time.RFC3339))
	}
	after := now.UTC().Truncate(time.Second).Format(time.RFC3339)
	if err := patch(ctx, c, u, r, map[string]any{"spec": map[string]any{"rollout": map[string]any{"after": after}}}); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s restarted: Machines created before %s will be replaced; follow with 'capstanctl rollout status %s'",
		r, after, r.Arg()), nil
}

// unpauseHint says how to lift what pauses the object. resume owns spec.paused on a
// MachineDeployment (as upstream), so the annotation there is removed with kubectl.
func unpauseHint(r Ref, s *State) string {
	resume := fmt.Sprintf("run 'capstanctl rollout resume %s'", r.Arg())
	if r.Kind != MachineDeployment || !s.Annotated {
		return resume
	}
	annotate := fmt.Sprintf("remove the annotation with 'kubectl annotate machinedeployment %s -n %s %s-'",
		r.Name, r.Namespace, clusterv1.PausedAnnotation)
	if s.SpecPaused {
		return resume + " and " + annotate
	}
	return annotate
}

// Pause stops the object's rollout: spec.paused on a MachineDeployment, the paused annotation on
// a KubeadmControlPlane. Pausing a paused object changes nothing and says so.
func Pause(ctx context.Context, c client.Client, r Ref) (string, error) {
	return setPaused(ctx, c, r, true)
}

// Resume undoes Pause. Resuming an object that is not paused changes nothing and says so.
func Resume(ctx context.Context, c client.Client, r Ref) (string, error) {
	return setPaused(ctx, c, r, false)
}

func setPaused(ctx context.Context, c client.Client, r Ref, pause bool) (string, error) {
	u, err := get(ctx, c, r)
	if err != nil {
		return "", err
	}
	s, err := stateOf(r, u)
	if err != nil {
		return "", err
	}
	var paused bool
	var p map[string]any
	if r.Kind == MachineDeployment {
		paused = s.SpecPaused
		p = map[string]any{"spec": map[string]any{"paused": pause}}
	} else {
		paused = s.Annotated
		var value any // null removes the annotation in a merge patch
		if pause {
			value = "true"
		}
		p = map[string]any{"metadata": map[string]any{"annotations": map[string]any{clusterv1.PausedAnnotation: value}}}
	}
	switch {
	case pause && paused:
		return fmt.Sprintf("%s is already paused; nothing changed", r), nil
	case !pause && !paused:
		return fmt.Sprintf("%s is not paused; nothing changed", r), nil
	}
	if err := patch(ctx, c, u, r, p); err != nil {
		return "", err
	}
	if pause {
		return fmt.Sprintf("%s paused: it rolls nothing out until 'capstanctl rollout resume %s'", r, r.Arg()), nil
	}
	return fmt.Sprintf("%s resumed", r), nil
}

// patch applies a JSON merge patch of the few fields rollout owns, leaving the rest to others.
func patch(ctx context.Context, c client.Client, u client.Object, r Ref, p map[string]any) error {
	data, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encoding the patch of %s: %w", r, err)
	}
	if err := c.Patch(ctx, u, client.RawPatch(types.MergePatchType, data)); err != nil {
		return fmt.Errorf("patching %s: %w", r, err)
	}
	return nil
}
