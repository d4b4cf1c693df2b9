package dockercluster

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/envtest"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

func TestDockerCluster_RecordsEachEventOnceOnItsActionAndNoneWhenSteady(t *testing.T) {
	rt := dockerFor(t)
	ns := env.CreateNamespace(t, "dc")
	counter := &envtest.CallCounter{Key: client.ObjectKey{Namespace: ns, Name: "ev"}, Type: &infrav1.DockerCluster{}}
	startCountedController(t, rt, counter)
	_, dc := newCluster(t, rt, ns, "ev")
	dc = waitProvisioned(t, dc)

	created := env.WaitForEvents(t, 30*time.Second, dc, ReasonSuccessfulCreate, 1)
	require.Equal(t, "CreateLoadBalancer", created[0].Action)
	require.Equal(t, "dockercluster-controller", created[0].ReportingController)
	require.Contains(t, created[0].Note, "Created load balancer container ev-lb (image "+testImage+")")

	cp0 := fakeControlPlane(t, rt, ns, "ev", "ev-cp-0")
	waitConfig(t, rt, "ev-lb", cp0)
	reloaded := env.WaitForEvents(t, 30*time.Second, dc, ReasonSuccessfulReload, 1)
	require.Equal(t, "ReloadLoadBalancer", reloaded[0].Action)
	require.Equal(t, "Reloaded load balancer ev-lb with 1 control-plane nodes [ev-cp-0]", reloaded[0].Note)

	// Steady: reconciles that find the load balancer as it should be record nothing. The
	// first poke makes sure a reconcile that began before the last write has run.
	counter.Poke(t, env.Client, dc.DeepCopy(), "0")
	_, before := counter.Snapshot()
	counter.Poke(t, env.Client, dc.DeepCopy(), "1")
	counter.Poke(t, env.Client, dc.DeepCopy(), "2")
	_, after := counter.Snapshot()
	require.Equal(t, before, after, "a steady DockerCluster is reconciled without writes (Events included)")
	require.Equal(t, 1, counter.EventsRecorded(ReasonSuccessfulCreate, "ev"), "the load balancer's creation")
	require.Equal(t, 1, counter.EventsRecorded(ReasonSuccessfulReload, "ev"), "one reload for cp-0: none for the new load balancer's first configuration")

	require.NoError(t, env.Client.Delete(context.Background(), dc))
	waitGone(t, dc)
	deleted := env.WaitForEvents(t, 30*time.Second, dc, ReasonSuccessfulDelete, 1)
	require.Equal(t, "DeleteLoadBalancer", deleted[0].Action)
	require.Equal(t, "Removed load balancer container ev-lb", deleted[0].Note)
	require.Equal(t, 1, counter.EventsRecorded(ReasonSuccessfulDelete, "ev"))
	require.Zero(t, counter.EventsRecorded(ReasonFailedCreate, "ev")+counter.EventsRecorded(ReasonFailedReload, "ev")+
		counter.EventsRecorded(ReasonFailedDelete, "ev"))
}

func TestDockerCluster_MissingImageIsRecordedOnceAsFailedCreate(t *testing.T) {
	rt := dockerFor(t)
	ns := env.CreateNamespace(t, "dc")
	counter := &envtest.CallCounter{Key: client.ObjectKey{Namespace: ns, Name: "noimg"}, Type: &infrav1.DockerCluster{}}
	startCountedController(t, rt, counter)
	_, dc := newCluster(t, rt, ns, "noimg", func(dc *infrav1.DockerCluster) { dc.Spec.LoadBalancer.ImageTag = "no-such-tag" })

	failed := env.WaitForEvents(t, 60*time.Second, dc, ReasonFailedCreate, 1)
	require.Equal(t, "CreateLoadBalancer", failed[0].Action)
	require.Contains(t, failed[0].Note, "Failed to create load balancer container noimg-lb: Image capstan/haproxy:no-such-tag is not on the Docker Engine")
	require.Contains(t, failed[0].Note, "make lb-image")
	// The retries (with backoff) find the same failure, which the condition already reports.
	counter.Poke(t, env.Client, dc.DeepCopy(), "0")
	counter.Poke(t, env.Client, dc.DeepCopy(), "1")
	require.Equal(t, 1, counter.EventsRecorded(ReasonFailedCreate, "noimg"), "a retry of the same failure is not recorded again")
}
