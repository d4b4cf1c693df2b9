package envtest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/contracts/manager"
)

// ConversionReplicas is a manager whose conversion webhook runs in several replicas behind one
// Service, as its Deployment runs it.
type ConversionReplicas struct {
	// Name names the manager (each replica's name ends in its index).
	Name string
	// Scheme is the manager's scheme, with the older versions its webhook serves.
	Scheme *runtime.Scheme
	// RBAC are the files whose +kubebuilder:rbac markers hold what the webhook needs; each
	// replica runs as a user holding only those.
	RBAC []string
	// Setup sets the conversion webhook up on a replica's manager as the provider's main does.
	Setup func(mgr ctrl.Manager, webhook conversionwebhook.Options) error
	// CRDs are the CRDs its webhook serves.
	CRDs []string
	// Convert reads an object at an older version, which the webhook converts.
	Convert func() error
}

// startReplica runs replica i of r with its health probes on healthAddr until the test ends.
func (e *Environment) startReplica(t *testing.T, r ConversionReplicas, i int, webhook conversionwebhook.Options, healthAddr string) {
	t.Helper()
	name := fmt.Sprintf("%s-replica-%d", r.Name, i)
	opts := manager.NewOptions(name, name, "default")
	opts.LeaderElect, opts.MetricsBindAddress, opts.HealthProbeBindAddress, opts.Webhook = false, "0", healthAddr, webhook
	mgr, err := manager.New(opts, r.Scheme, e.UserFromRBACMarkers(t, "capstan-"+name, r.RBAC...))
	if err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	if err := r.Setup(mgr, opts.Webhook); err != nil {
		t.Fatalf("setting up the conversion webhook of %s: %v", name, err)
	}
	StartManager(t, mgr)
}

// quietResyncs is how many resyncs of every replica must pass without a CRD write.
const quietResyncs = 5

// RequireConversionReplicasAgree runs two replicas of r behind a WebhookFront (the Service) with
// a resync of one second (a minute in production) and checks what a Deployment of two replicas
// needs: once both are ready, quietResyncs resyncs pass without a single write to the CRDs (seen
// on a watch: a write closes every watch on the kind), and a conversion succeeds through either
// replica (its certificate is trusted by the CRDs' one bundle).
func (e *Environment) RequireConversionReplicasAgree(t *testing.T, r ConversionReplicas) {
	t.Helper()
	const resync = time.Second
	backends := []string{FreeLoopbackAddr(t), FreeLoopbackAddr(t)}
	front := StartWebhookFront(t, backends...)
	ns := e.CreateNamespace(t, "webhook")
	var health []string
	for i, addr := range backends {
		o := conversionwebhook.DefaultOptions()
		o.BindAddress, o.Service, o.URL, o.ResyncInterval = addr, ns+"/webhook-service", front.URL(), resync
		health = append(health, FreeLoopbackAddr(t))
		e.startReplica(t, r, i, o, health[i])
	}
	for i, addr := range health {
		WaitFor(t, 60*time.Second, fmt.Sprintf("replica %d to be ready", i), func() (bool, error) {
			return ready(addr)
		})
	}

	writes := e.WatchCRDWrites(t, r.CRDs...)
	time.Sleep(quietResyncs * resync) // the observation window: every event in it is seen
	for i := range backends {
		front.RouteTo(i)
		before := front.Connections(i)
		// The API server may still write one request on a pooled connection the front has just
		// closed (write: broken pipe): an artifact of RouteTo, not of the replica, so the read is
		// retried until it converts or the deadline passes.
		WaitFor(t, 20*time.Second, fmt.Sprintf("a v1beta1 read converted through replica %d", i), func() (bool, error) {
			err := r.Convert()
			return err == nil, err
		})
		if front.Connections(i) == before {
			t.Fatalf("the conversion did not go through replica %d", i)
		}
	}
	if w := writes(); len(w) > 0 {
		t.Fatalf("the replicas wrote the CRDs %d times after both were ready: %v", len(w), w)
	}
}

func ready(healthAddr string) (bool, error) {
	resp, err := http.Get("http://" + healthAddr + "/readyz") //nolint:noctx // a probe, as the kubelet's
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("readyz: %d %s", resp.StatusCode, body)
	}
	return true, nil
}

// WatchCRDWrites watches the named CRDs from now on and returns what writes it has seen so far,
// each as name@resourceVersion.
func (e *Environment) WatchCRDWrites(t testing.TB, names ...string) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	list := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := e.Client.List(ctx, list); err != nil {
		t.Fatalf("listing CRDs: %v", err)
	}
	w, err := e.Client.Watch(ctx, &apiextensionsv1.CustomResourceDefinitionList{},
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}})
	if err != nil {
		t.Fatalf("watching CRDs: %v", err)
	}
	var mu sync.Mutex
	var seen []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			crd, ok := ev.Object.(*apiextensionsv1.CustomResourceDefinition)
			if !ok || ev.Type == watch.Bookmark || !slices.Contains(names, crd.Name) {
				continue
			}
			mu.Lock()
			seen = append(seen, crd.Name+"@"+crd.ResourceVersion)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		w.Stop()
		cancel()
		<-done
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// WebhookFront is a TCP proxy on a loopback port in front of the webhook servers of a manager's
// replicas, as a Service is in front of their pods: the API server calls it (TLS passes
// through), and a test picks which replica takes the next connections.
type WebhookFront struct {
	listener net.Listener
	backends []string

	mu     sync.Mutex
	target int
	open   map[net.Conn]struct{}
	count  []int
}

// StartWebhookFront listens until the test ends.
func StartWebhookFront(t testing.TB, backends ...string) *WebhookFront {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listening: %v", err)
	}
	f := &WebhookFront{listener: l, backends: backends, open: map[net.Conn]struct{}{}, count: make([]int, len(backends))}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { f.forward(conn) })
		}
	})
	t.Cleanup(func() {
		_ = l.Close()
		f.closeOpen()
		wg.Wait()
	})
	return f
}

// URL is what the API server calls.
func (f *WebhookFront) URL() string {
	return "https://" + f.listener.Addr().String() + conversionwebhook.Path
}

// RouteTo sends the next connections to replica i and closes the open ones, so the API server
// dials again.
func (f *WebhookFront) RouteTo(i int) {
	f.mu.Lock()
	f.target = i
	f.mu.Unlock()
	f.closeOpen()
}

// Connections is how many connections replica i has been given.
func (f *WebhookFront) Connections(i int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.count[i]
}

func (f *WebhookFront) forward(in net.Conn) {
	f.mu.Lock()
	i := f.target
	f.count[i]++
	f.mu.Unlock()
	out, err := net.Dial("tcp", f.backends[i])
	if err != nil {
		_ = in.Close()
		return
	}
	f.track(in, out)
	var wg sync.WaitGroup
	for _, pair := range [][2]net.Conn{{out, in}, {in, out}} {
		wg.Go(func() {
			_, _ = io.Copy(pair[0], pair[1])
			_ = pair[0].Close()
			_ = pair[1].Close()
		})
	}
	wg.Wait()
	f.untrack(in, out)
}

func (f *WebhookFront) track(conns ...net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range conns {
		f.open[c] = struct{}{}
	}
}

func (f *WebhookFront) untrack(conns ...net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range conns {
		delete(f.open, c)
	}
}

func (f *WebhookFront) closeOpen() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.open {
		_ = c.Close()
	}
}
