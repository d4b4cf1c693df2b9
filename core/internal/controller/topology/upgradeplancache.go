package topology

import (
	"context"
	"sync"
	"time"

	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
	"capstan.dev/core/internal/topology/clusterstate"
)

// upgradePlanTTL is how long a GenerateUpgradePlan answer is reused (upstream's 10 minutes):
// while a control plane upgrades, the Cluster is reconciled on every Machine and
// MachineDeployment event, and the plan for the same versions does not change meanwhile.
const upgradePlanTTL = 10 * time.Minute

// cachedPlanner keeps GenerateUpgradePlan answers by Cluster, handler and versions. Only
// answers are kept, never errors: a failed call is made again on the next reconcile.
type cachedPlanner struct {
	next clusterstate.UpgradePlanner
	now  func() time.Time

	mu      sync.Mutex
	entries map[upgradePlanKey]upgradePlanEntry
}

type upgradePlanKey struct {
	cluster, handler, fromControlPlane, fromWorkers, to string
}

type upgradePlanEntry struct {
	resp *hooksv1.GenerateUpgradePlanResponse
	at   time.Time
}

func (p *cachedPlanner) GenerateUpgradePlan(ctx context.Context, handler, namespace string,
	req *hooksv1.GenerateUpgradePlanRequest) (*hooksv1.GenerateUpgradePlanResponse, error) {
	key := upgradePlanKey{cluster: string(req.Cluster.UID), handler: handler, fromControlPlane: req.FromControlPlaneKubernetesVersion,
		fromWorkers: req.FromWorkersKubernetesVersion, to: req.ToKubernetesVersion}
	now := p.now()
	p.mu.Lock()
	e, ok := p.entries[key]
	p.mu.Unlock()
	if ok && now.Sub(e.at) < upgradePlanTTL {
		return copyPlan(e.resp), nil
	}
	resp, err := p.next.GenerateUpgradePlan(ctx, handler, namespace, req)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.entries == nil {
		p.entries = map[upgradePlanKey]upgradePlanEntry{}
	}
	for k, old := range p.entries { // keep it from growing with every upgrade
		if now.Sub(old.at) >= upgradePlanTTL {
			delete(p.entries, k)
		}
	}
	p.entries[key] = upgradePlanEntry{resp: copyPlan(resp), at: now}
	return resp, nil
}

// copyPlan copies an answer, so that no caller shares the cached one.
func copyPlan(r *hooksv1.GenerateUpgradePlanResponse) *hooksv1.GenerateUpgradePlanResponse {
	out := *r
	out.ControlPlaneUpgrades = append([]hooksv1.UpgradeStep(nil), r.ControlPlaneUpgrades...)
	out.WorkersUpgrades = append([]hooksv1.UpgradeStep(nil), r.WorkersUpgrades...)
	return &out
}
