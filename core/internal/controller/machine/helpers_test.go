package machine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/secret"
)

// runningMachine provisions a Machine and registers its Ready Node, and waits
// until the Machine is Running with Ready and Available True.
func (f *fixture) runningMachine(t *testing.T, name string, mutate ...func(*clusterv1.Machine)) (*clusterv1.Machine, *corev1.Node) {
	t.Helper()
	m, bootstrap, infra := f.newMachine(t, name, mutate...)
	providerID := uniqueProviderID(f, name)
	provision(t, bootstrap, infra, providerID)
	node := createNode(t, f.ns+"-"+name, providerID)
	waitPhase(t, m, clusterv1.MachinePhaseRunning)
	envtest.WaitFor(t, 30*time.Second, "Machine "+name+" Ready and Available", func() (bool, error) {
		got, err := getMachine(t, m)
		return err == nil && conditions.IsTrue(got, clusterv1.MachineReadyCondition) && conditions.IsTrue(got, clusterv1.MachineAvailableCondition), err
	})
	got, err := getMachine(t, m)
	require.NoError(t, err)
	return got, node
}

// observed is one version of a Machine as a watch delivered it.
type observed struct {
	at      time.Time
	machine *clusterv1.Machine
}

// machineWatch records every version of one Machine the API server reports, so a
// test can check a "never" property on each of them rather than on samples.
type machineWatch struct {
	mu   sync.Mutex
	seen []observed
}

func watchMachine(t *testing.T, m *clusterv1.Machine) *machineWatch {
	t.Helper()
	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Client.Scheme()})
	require.NoError(t, err)
	w, err := wc.Watch(context.Background(), &clusterv1.MachineList{}, client.InNamespace(m.Namespace),
		client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", m.Name)})
	require.NoError(t, err)
	t.Cleanup(w.Stop)
	mw := &machineWatch{}
	go func() {
		for ev := range w.ResultChan() {
			if got, ok := ev.Object.(*clusterv1.Machine); ok {
				mw.mu.Lock()
				mw.seen = append(mw.seen, observed{at: time.Now(), machine: got})
				mw.mu.Unlock()
			}
		}
	}()
	// The watch starts with the current version: wait for it so nothing is missed.
	envtest.WaitFor(t, 10*time.Second, "the watch of Machine "+m.Name+" to start", func() (bool, error) {
		return len(mw.versions()) > 0, nil
	})
	return mw
}

func (w *machineWatch) versions() []observed {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]observed(nil), w.seen...)
}

// nodeDerivedConditions are the conditions a lost workload connection must not flip.
var nodeDerivedConditions = []string{
	clusterv1.MachineNodeReadyCondition, clusterv1.MachineNodeHealthyCondition,
	clusterv1.MachineReadyCondition, clusterv1.MachineAvailableCondition,
}

// conditionsDiff compares the given conditions of two Machines, transition times included.
func conditionsDiff(want, got *clusterv1.Machine, types []string) string {
	pick := func(m *clusterv1.Machine) map[string]any {
		out := map[string]any{}
		for _, ct := range types {
			out[ct] = conditions.Get(m, ct)
		}
		return out
	}
	return cmp.Diff(pick(want), pick(got))
}

// breakKubeconfig points the Cluster's kubeconfig Secret at a port nobody listens
// on: the ClusterCache reconnects with it and fails, as with a dead API server.
func (f *fixture) breakKubeconfig(t *testing.T) {
	t.Helper()
	cfg, err := clientcmd.Load(env.KubeConfig)
	require.NoError(t, err)
	for _, c := range cfg.Clusters {
		c.Server = "https://127.0.0.1:1"
	}
	data, err := clientcmd.Write(*cfg)
	require.NoError(t, err)
	s := &corev1.Secret{}
	key := client.ObjectKey{Namespace: f.ns, Name: secret.Name(f.cluster.Name, secret.Kubeconfig)}
	require.NoError(t, env.Client.Get(context.Background(), key, s))
	envtest.Update(t, env.Client, s, func() { s.Data[secret.KubeconfigDataName] = data })
}
