package coretest

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/secret"
)

// DeadServer is an address nobody listens on: a kubeconfig pointing there behaves
// like a workload cluster whose API server is down.
const DeadServer = "https://127.0.0.1:1"

// SetKubeconfigServer rewrites the Cluster's kubeconfig Secret to reach server
// (DeadServer to cut the workload connection, "" for envtest's own address); the
// ClusterCache reconnects with it.
func SetKubeconfigServer(t *testing.T, env *envtest.Environment, cluster *clusterv1.Cluster, server string) {
	t.Helper()
	cfg, err := clientcmd.Load(env.KubeConfig)
	if err != nil {
		t.Fatalf("parsing envtest's kubeconfig: %v", err)
	}
	for _, c := range cfg.Clusters {
		if server != "" {
			c.Server = server
		}
	}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatalf("writing a kubeconfig: %v", err)
	}
	s := &corev1.Secret{}
	key := client.ObjectKey{Namespace: cluster.Namespace, Name: secret.Name(cluster.Name, secret.Kubeconfig)}
	if err := env.Client.Get(context.Background(), key, s); err != nil {
		t.Fatalf("reading Secret %s: %v", key, err)
	}
	envtest.Update(t, env.Client, s, func() { s.Data[secret.KubeconfigDataName] = data })
}

// ObservedMachine is one version of a Machine as a watch delivered it.
type ObservedMachine struct {
	At      time.Time
	Machine *clusterv1.Machine
}

// MachineWatch records every version of one Machine the API server reports, so a
// test checks a "never" property on each of them rather than on samples.
type MachineWatch struct {
	mu   sync.Mutex
	seen []ObservedMachine
}

// WatchMachine starts recording m's versions, beginning with the current one; the
// watch ends with the test.
func WatchMachine(t *testing.T, env *envtest.Environment, m *clusterv1.Machine) *MachineWatch {
	t.Helper()
	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Client.Scheme()})
	if err != nil {
		t.Fatalf("building a watching client: %v", err)
	}
	w, err := wc.Watch(context.Background(), &clusterv1.MachineList{}, client.InNamespace(m.Namespace),
		client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", m.Name)})
	if err != nil {
		t.Fatalf("watching Machine %s: %v", m.Name, err)
	}
	t.Cleanup(w.Stop)
	mw := &MachineWatch{}
	go func() {
		for ev := range w.ResultChan() {
			if got, ok := ev.Object.(*clusterv1.Machine); ok {
				mw.mu.Lock()
				mw.seen = append(mw.seen, ObservedMachine{At: time.Now(), Machine: got})
				mw.mu.Unlock()
			}
		}
	}()
	envtest.WaitFor(t, 10*time.Second, "the watch of Machine "+m.Name+" to start", func() (bool, error) {
		return len(mw.Versions()) > 0, nil
	})
	return mw
}

// Versions returns what was recorded so far, oldest first.
func (w *MachineWatch) Versions() []ObservedMachine {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]ObservedMachine(nil), w.seen...)
}
