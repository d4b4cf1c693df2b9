package topology

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	hooksv1 "capstan.dev/contracts/api/runtime/hooks/v1alpha1"
)

type countingPlanner struct {
	calls int
	err   error
}

func (p *countingPlanner) GenerateUpgradePlan(_ context.Context, _, _ string, req *hooksv1.GenerateUpgradePlanRequest) (*hooksv1.GenerateUpgradePlanResponse, error) {
	p.calls++
	if p.err != nil {
		return nil, p.err
	}
	return &hooksv1.GenerateUpgradePlanResponse{ControlPlaneUpgrades: []hooksv1.UpgradeStep{{Version: req.ToKubernetesVersion}}}, nil
}

// TestCachedPlanner_ReusesAnAnswerForTenMinutesPerClusterAndVersions: the same question within
// 10 min is not asked again (and the cached answer cannot be changed by a caller); other versions,
// another Cluster, an expired answer or a failed call are asked again.
func TestCachedPlanner_ReusesAnAnswerForTenMinutesPerClusterAndVersions(t *testing.T) {
	now := time.Unix(0, 0)
	next := &countingPlanner{}
	p := &cachedPlanner{next: next, now: func() time.Time { return now }}
	req := func(uid, to string) *hooksv1.GenerateUpgradePlanRequest {
		return &hooksv1.GenerateUpgradePlanRequest{Cluster: clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{UID: types.UID("u" + uid)}},
			FromControlPlaneKubernetesVersion: "v1.37.2", ToKubernetesVersion: to}
	}
	ask := func(uid, to string) *hooksv1.GenerateUpgradePlanResponse {
		resp, err := p.GenerateUpgradePlan(context.Background(), "plan.ext", "ns", req(uid, to))
		require.NoError(t, err)
		return resp
	}
	first := ask("1", "v1.39.1")
	first.ControlPlaneUpgrades[0].Version = "changed by the caller"
	require.Equal(t, "v1.39.1", ask("1", "v1.39.1").ControlPlaneUpgrades[0].Version)
	require.Equal(t, 1, next.calls)
	ask("1", "v1.38.0")
	ask("2", "v1.39.1")
	require.Equal(t, 3, next.calls)
	now = now.Add(upgradePlanTTL)
	ask("1", "v1.39.1")
	require.Equal(t, 4, next.calls)

	next.err = errors.New("unreachable")
	_, err := p.GenerateUpgradePlan(context.Background(), "plan.ext", "ns", req("3", "v1.39.1"))
	require.Error(t, err)
	next.err = nil
	ask("3", "v1.39.1")
	require.Equal(t, 6, next.calls, "a failure is not cached")
}
