package dockermachinepool

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/envtest"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/node/nodetest"
)

func TestDockerMachinePool_RecordsEachInstanceCreatedAndRemovedOnceAndNothingWhenSteady(t *testing.T) {
	rt := nodetest.Docker(t)
	f := nodetest.NewFixture(t, env, rt, "ev")
	f.SetInfrastructureProvisioned(t)
	mp, pool := newPool(t, f, "pool", fakeBootstrapData("data"), poolOptions{replicas: ptr.To(int32(2))})
	counter := &envtest.CallCounter{Key: client.ObjectKeyFromObject(pool), Type: &infrav1.DockerMachinePool{}}
	startManager(t, rt, nil, counted(counter))
	waitPool(t, pool, 90*time.Second, "2 instances provisioned", provisionedWith(2))
	for _, c := range poolContainers(t, rt, pool) {
		nodetest.CreateNode(t, env.Client, c.Name)
	}
	nodetest.WaitCondition(t, env.Client, pool, 30*time.Second, infrav1.DockerMachinePoolReadyCondition, metav1.ConditionTrue, infrav1.DockerMachinePoolReadyReason, "")

	// One reconcile created both: one Event names them.
	created := env.WaitForEvents(t, 30*time.Second, pool, ReasonSuccessfulCreate, 1)
	require.Equal(t, "ScaleUp", created[0].Action)
	require.Equal(t, "dockermachinepool-controller", created[0].ReportingController)
	name := mp.Name + "-[a-z0-9]{5}"
	require.Regexp(t, "^Created instances "+name+", "+name+` \(image `+nodetest.TestImage+`; 2 replicas desired\)$`, created[0].Note)

	// Steady: reconciles of a Ready pool record nothing. The first poke makes sure a reconcile
	// that began before the last write has run.
	counter.Poke(t, env.Client, pool.DeepCopy(), "0")
	_, before := counter.Snapshot()
	counter.Poke(t, env.Client, pool.DeepCopy(), "1")
	counter.Poke(t, env.Client, pool.DeepCopy(), "2")
	_, after := counter.Snapshot()
	require.Equal(t, before, after, "a steady DockerMachinePool is reconciled without writes (Events included)")
	require.Equal(t, 1, counter.EventsRecorded(ReasonSuccessfulCreate, pool.Name))

	scale(t, mp, 1)
	waitPool(t, pool, 60*time.Second, "1 instance left", provisionedWith(1))
	left := poolContainers(t, rt, pool)
	require.Len(t, left, 1)
	scaledDown := env.WaitForEvents(t, 30*time.Second, pool, ReasonSuccessfulDelete, 1)
	require.Equal(t, "ScaleDown", scaledDown[0].Action)
	require.Regexp(t, "^Removed instance "+name+` and its volumes \(scale down, 1 desired\)$`, scaledDown[0].Note)
	require.NotContains(t, scaledDown[0].Note, left[0].Name, "the remaining instance is not the removed one")

	require.NoError(t, env.Client.Delete(context.Background(), pool))
	nodetest.WaitGone(t, env.Client, pool, 60*time.Second)
	var deleted string
	envtest.WaitFor(t, 30*time.Second, "the Event of the removal on deletion", func() (bool, error) {
		evs, err := env.Events(context.Background(), pool, ReasonSuccessfulDelete)
		for _, ev := range evs {
			if ev.Action == "Delete" {
				deleted = ev.Note
			}
		}
		return deleted != "", err
	})
	require.Equal(t, "Removed instance "+left[0].Name+" and its volumes (the DockerMachinePool is being deleted)", deleted)
	require.Equal(t, 1, counter.EventsRecorded(ReasonSuccessfulCreate, pool.Name))
	require.Equal(t, 2, counter.EventsRecorded(ReasonSuccessfulDelete, pool.Name))
	require.Zero(t, counter.EventsRecorded(ReasonFailedCreate, pool.Name)+counter.EventsRecorded(ReasonFailedDelete, pool.Name))
}
