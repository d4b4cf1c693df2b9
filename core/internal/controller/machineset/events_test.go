package machineset

import (
	"testing"

	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/envtest"
)

func TestMachineSet_RecordsAnEventForEachMachineCreatedAndDeleted(t *testing.T) {
	f := newFixture(t)
	ms := f.newMachineSet("workers", "web", 2)
	require.NoError(t, env.Client.Create(f.ctx, ms))
	owned := f.waitForOwned(ms, 2)

	created := env.WaitForEvents(t, timeout, ms, ReasonSuccessfulCreate, 2)
	names := sets.New[string]()
	for _, ev := range created {
		require.Equal(t, "Normal", ev.Type)
		require.Equal(t, ControllerName, ev.ReportingController)
		require.Equal(t, "Create", ev.Action)
		require.NotNil(t, ev.Related, "the Event names the Machine it created")
		names.Insert(ev.Related.Name)
	}
	require.Equal(t, sets.KeySet(owned), names, "one Event per Machine created")

	s := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 1}}
	require.NoError(t, env.Client.SubResource("scale").Update(f.ctx, ms, client.WithSubResourceBody(s)))
	deleted := env.WaitForEvents(t, timeout, ms, ReasonSuccessfulDelete, 1)
	require.Contains(t, owned, deleted[0].Related.Name)
	require.Contains(t, deleted[0].Note, "scale down")

	// Reconciles of the settled MachineSet (its Machines' status updates) record nothing more.
	f.waitForOwned(ms, 1)
	f.releaseAllMachines()
	envtest.WaitFor(t, timeout, "the deleted Machine to be gone", func() (bool, error) { return len(f.ownedBy(ms)) == 1, nil })
	got, err := env.Events(f.ctx, ms, ReasonSuccessfulCreate)
	require.NoError(t, err)
	require.Len(t, got, 2, "no Machine was created again")
}
