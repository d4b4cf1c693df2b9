package move

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// BlockMoveAnnotation on an object tells clusterctl (and capstanctl) move that its provider
// still has work to finish before the object may move (upstream's
// clusterctl.cluster.x-k8s.io/block-move): a provider sets it while it acts, and removes it once
// it has seen its object paused. Its value does not matter.
const BlockMoveAnnotation = "clusterctl.cluster.x-k8s.io/block-move"

// DefaultBlockMoveTimeout is how long a move waits for the block-move annotations to go, as
// upstream's backoff (5 s, growing by half, ten steps) about.
const DefaultBlockMoveTimeout = 2 * time.Minute

// blocked names the objects of plan carrying BlockMoveAnnotation (kind/name, sorted).
func blocked(plan *Plan) []string {
	var out []string
	for _, o := range plan.Objects {
		if _, ok := o.GetAnnotations()[BlockMoveAnnotation]; ok {
			out = append(out, describe(o))
		}
	}
	sort.Strings(out)
	return out
}

// WaitUnblocked waits, once the source is paused, until no object of plan carries
// BlockMoveAnnotation any more, reading each again from source (their providers remove it once
// they have seen the pause). Objects are updated in place. After timeout it fails naming the
// objects still blocked; nothing has been copied then, and the source stays paused.
func WaitUnblocked(ctx context.Context, source client.Reader, plan *Plan, timeout time.Duration) error {
	if len(blocked(plan)) == 0 {
		return nil
	}
	if timeout <= 0 {
		timeout = DefaultBlockMoveTimeout
	}
	var still []string // as of the last complete pass
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		var now []string
		for _, o := range plan.Objects {
			if _, ok := o.GetAnnotations()[BlockMoveAnnotation]; !ok {
				continue
			}
			cur := &unstructured.Unstructured{}
			cur.SetGroupVersionKind(o.GroupVersionKind())
			if err := source.Get(ctx, client.ObjectKeyFromObject(o), cur); err != nil {
				if ctx.Err() != nil {
					return false, nil // the wait is over: still says what blocked
				}
				return false, fmt.Errorf("reading %s in the source: %w", describe(o), err)
			}
			o.Object = cur.Object
			if _, ok := o.GetAnnotations()[BlockMoveAnnotation]; ok {
				now = append(now, describe(o))
			}
		}
		still = now
		return len(still) == 0, nil
	})
	if err != nil && len(still) > 0 {
		sort.Strings(still)
		verb, whose := "carries", "its provider has not finished with it"
		if len(still) > 1 {
			verb, whose = "carry", "their providers have not finished with them"
		}
		return fmt.Errorf("%s still %s annotation %s after %s: %s (is it running in the source?); nothing was copied",
			strings.Join(still, ", "), verb, BlockMoveAnnotation, timeout, whose)
	}
	return err
}
