package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
)

// coreUser is the identity the core runs as in the write-counting tests, so the audit log
// tells its writes from the test's (which plays the providers).
const coreUser = "capstan-core-writes"

// TestWrites_AMachineOfAMachineSetCostsNoAdoptionNorFinalizerWrite brings the Machines of a
// MachineSet through their providers' steps (bootstrap data, then infrastructure and Node) and
// counts the core's writes through the API server's audit log: the clones are created already
// owned by their Machine and labelled (no adoption patch of either), and the Machine is created
// with its finalizer, so the only writes of the Machine itself are the two spec fields the
// providers report (dataSecretName, providerID).
func TestWrites_AMachineOfAMachineSetCostsNoAdoptionNorFinalizerWrite(t *testing.T) {
	const replicas = 3
	cfg, err := env.AddUser(coreUser, "system:masters")
	require.NoError(t, err)
	startCoreAs(t, cfg)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "writes")
	c := newInitializedCluster(t, ns, "writes")
	from := time.Now()
	ms := &clusterv1.MachineSet{
		ObjectMeta: metav1.ObjectMeta{Name: "workers", Namespace: ns},
		Spec: clusterv1.MachineSetSpec{
			ClusterName: c.Name, Replicas: ptr.To[int32](replicas),
			Selector: clusterv1.LabelSelector{MatchLabels: map[string]string{"pool": "workers"}},
			Template: workersTemplate(c.Name),
		},
	}
	require.NoError(t, env.Client.Create(ctx, ms))

	// One provider step at a time, each once every Machine has taken the previous one.
	machinesIn(t, ns, replicas, clusterv1.MachinePhasePending, nil)
	machinesIn(t, ns, replicas, clusterv1.MachinePhaseProvisioning, provisionBootstrap)
	machinesIn(t, ns, replicas, clusterv1.MachinePhaseRunning, provisionInfrastructure)
	envtest.WaitFor(t, 60*time.Second, "the core's writes to settle", func() (bool, error) {
		recent, err := coreWrites(ns, time.Now().Add(-5*time.Second), time.Now().Add(time.Second))
		return err == nil && len(recent) == 0, err
	})

	writes, err := coreWrites(ns, from, time.Now())
	require.NoError(t, err)
	count := map[string]int{}
	for _, w := range writes {
		if w.ResponseStatus.Code < 300 {
			count[w.Verb+" "+w.Resource()]++
		}
	}
	all := envtest.DescribeAuditEvents(writes)
	require.Equal(t, replicas, count["create machines"], all)
	require.Equal(t, replicas, count["create genericbootstrapconfigs"], all)
	require.Equal(t, replicas, count["create genericinfrastructuremachines"], all)
	require.Zero(t, count["patch genericbootstrapconfigs"], "no adoption of the bootstrap configs:\n%s", all)
	require.Zero(t, count["patch genericinfrastructuremachines"], "no adoption of the infrastructure machines:\n%s", all)
	require.LessOrEqual(t, count["patch machines"], 2*replicas, "dataSecretName and providerID only, no finalizer write:\n%s", all)
}

// machinesIn applies step (when set) to every Machine of the namespace once, then waits for
// want Machines in phase.
func machinesIn(t *testing.T, ns string, want int, phase clusterv1.MachinePhase, step func(context.Context, string, *clusterv1.Machine) error) {
	t.Helper()
	ctx := context.Background()
	done := map[string]bool{}
	envtest.WaitFor(t, 3*time.Minute, fmt.Sprintf("%d Machines %s", want, phase), func() (bool, error) {
		machines := &clusterv1.MachineList{}
		if err := env.Client.List(ctx, machines, client.InNamespace(ns)); err != nil {
			return false, err
		}
		in := 0
		for i := range machines.Items {
			m := &machines.Items[i]
			if step != nil && !done[m.Name] {
				if err := step(ctx, ns, m); err != nil {
					return false, err
				}
				done[m.Name] = true
			}
			if m.Status.Phase == string(phase) && (phase != clusterv1.MachinePhaseRunning || conditions.IsTrue(m, clusterv1.MachineAvailableCondition)) {
				in++
			}
		}
		if in < want {
			return false, fmt.Errorf("%d of %d Machines %s", in, want, phase)
		}
		return true, nil
	})
}

// coreWrites are the core's writes in namespace ns completed in [from, to).
func coreWrites(ns string, from, to time.Time) ([]envtest.AuditEvent, error) {
	all, err := envtest.AuditWritesBetween(auditLog, from, to)
	if err != nil {
		return nil, err
	}
	var out []envtest.AuditEvent
	for _, e := range all {
		if e.User.Username == coreUser && e.ObjectRef.Namespace == ns {
			out = append(out, e)
		}
	}
	return out, nil
}
