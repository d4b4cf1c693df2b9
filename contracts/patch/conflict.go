package patch

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// ConflictRequeue is how soon a reconcile that lost an optimistic-lock race runs again.
const ConflictRequeue = time.Second

// RequeueOnConflict wraps a reconciler so that a reconcile failing only with
// optimistic-lock conflicts (409, typically from the deferred Patch: the object
// changed since it was read) is requeued quietly instead of being logged by
// controller-runtime as a "Reconciler error" with a stack trace. A conflict is not
// a fault: the next reconcile reads the newer version and recomputes. Any other
// error in the result is returned unchanged. Use it once per controller, where the
// reconciler is handed to Build or Complete.
func RequeueOnConflict(r reconcile.Reconciler) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		res, err := r.Reconcile(ctx, req)
		if err == nil || !onlyConflicts(err) {
			return res, err
		}
		ctrl.LoggerFrom(ctx).V(4).Info("Object changed while it was reconciled: requeueing", "reason", err.Error())
		if res.RequeueAfter == 0 || res.RequeueAfter > ConflictRequeue {
			res.RequeueAfter = ConflictRequeue
		}
		return res, nil
	})
}

// onlyConflicts reports whether err is a Conflict, or wraps or aggregates nothing
// but Conflicts.
func onlyConflicts(err error) bool {
	switch e := err.(type) {
	case apierrors.APIStatus:
		return apierrors.IsConflict(err)
	case kerrors.Aggregate:
		return allConflicts(e.Errors())
	case interface{ Unwrap() []error }:
		return allConflicts(e.Unwrap())
	}
	if inner := errors.Unwrap(err); inner != nil {
		return onlyConflicts(inner)
	}
	return false
}

func allConflicts(errs []error) bool {
	for _, err := range errs {
		if err != nil && !onlyConflicts(err) {
			return false
		}
	}
	return len(errs) > 0
}
