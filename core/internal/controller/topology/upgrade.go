package topology

import (
	"context"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/topology/clusterstate"
	"capstan.dev/core/internal/topology/desired"
	"capstan.dev/core/internal/topology/upgrade"
)

// planUpgrade computes the version of every object (clusterstate.PlanUpgrade). An invalid
// upgrade-concurrency annotation blocks the reconcile with the field path.
func (r *Reconciler) planUpgrade(ctx context.Context, s *scope) error {
	in, ferr, err := clusterstate.ReadUpgradeInputWith(ctx, r.Client, r.upgradePlanner(), s.cluster, s.class, s.current)
	if ferr != nil {
		s.blocked = &blockedReason{clusterv1.ClusterTopologyReconciledFailedReason, ferr.Error() + ": fix or remove the annotation"}
		return nil
	}
	if err != nil {
		return err
	}
	s.upgradeInput, s.upgrade = in, upgrade.Compute(in)
	return nil
}

// versions are the plan's versions in the shape desired.Compute takes.
func (s *scope) versions() desired.Versions { return clusterstate.Versions(s.upgrade) }
