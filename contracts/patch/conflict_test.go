package patch_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"capstan.dev/contracts/patch"
)

func TestRequeueOnConflict_ConflictsRequeueQuietlyOtherErrorsAreReturned(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "cluster.x-k8s.io", Resource: "machines"}, "m1", errors.New("the object has been modified"))
	other := errors.New("reading Cluster c1: connection refused")
	for _, tc := range []struct {
		name        string
		res         reconcile.Result
		err         error
		wantErr     bool
		wantRequeue time.Duration
	}{
		{name: "bare conflict", err: conflict, wantRequeue: patch.ConflictRequeue},
		{name: "wrapped conflict from the deferred patch", err: fmt.Errorf("patching status of Machine ns/m1: %w", conflict), wantRequeue: patch.ConflictRequeue},
		{name: "aggregate of nothing but a conflict", err: kerrors.NewAggregate([]error{nil, fmt.Errorf("patching: %w", conflict)}), wantRequeue: patch.ConflictRequeue},
		{name: "a sooner requeue is kept", res: reconcile.Result{RequeueAfter: 100 * time.Millisecond}, err: conflict, wantRequeue: 100 * time.Millisecond},
		{name: "conflict plus a real error", err: kerrors.NewAggregate([]error{other, conflict}), wantErr: true},
		{name: "joined conflict plus a real error", err: fmt.Errorf("reconcile: %w", errors.Join(conflict, other)), wantErr: true},
		{name: "not found", err: apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, "n1"), wantErr: true},
		{name: "no error", res: reconcile.Result{RequeueAfter: time.Minute}, wantRequeue: time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return tc.res, tc.err })
			res, err := patch.RequeueOnConflict(inner).Reconcile(context.Background(), reconcile.Request{})
			if tc.wantErr {
				require.Equal(t, tc.err, err, "returned unchanged")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantRequeue, res.RequeueAfter)
		})
	}
}
