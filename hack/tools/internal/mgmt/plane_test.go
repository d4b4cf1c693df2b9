package mgmt

import (
	"bytes"
	"context"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/k8sbin"
	"capstan.dev/contracts/testing/crds"
)

func init() { log.SetLogger(logr.Discard()) } // controller-runtime's CRD installer logs through it

func newPlane(t *testing.T) *Plane {
	t.Helper()
	if _, err := k8sbin.Require("etcd", "kube-apiserver"); err != nil {
		t.Fatalf("the management plane needs real binaries: %v", err)
	}
	p := &Plane{Dir: t.TempDir(), Namespaces: []string{"capstan-system"}, Log: &bytes.Buffer{}}
	t.Cleanup(func() {
		if err := p.Down(); err != nil {
			t.Errorf("stopping the plane: %v", err)
		}
	})
	return p
}

func planeClient(t *testing.T, p *Plane) client.Client {
	t.Helper()
	cfg, err := p.RESTConfig()
	require.NoError(t, err)
	scheme, err := envtest.DefaultScheme()
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	require.NoError(t, err)
	return c
}

func TestPlane_ObjectsSurviveDownAndUp(t *testing.T) {
	p := newPlane(t)
	ctx := context.Background()
	require.NoError(t, p.Up(ctx))
	c := planeClient(t, p)

	// Up created the providers' namespace and installed the core CRDs.
	require.NoError(t, c.Get(ctx, types.NamespacedName{Name: "capstan-system"}, &corev1.Namespace{}))
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "survivor", Namespace: "default"},
		Spec: clusterv1.ClusterSpec{ClusterNetwork: clusterv1.ClusterNetwork{ServiceDomain: "cluster.local"},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, "survivor")},
	}
	require.NoError(t, c.Create(ctx, cluster))

	firstPIDs := p.Running()
	require.NoError(t, p.Down())
	require.Empty(t, p.Running(), "every component stops on Down")
	for name, pid := range firstPIDs {
		require.False(t, alive(pid), "%s (pid %d) still alive after Down", name, pid)
	}
	st, err := p.loadOrAllocateState()
	require.NoError(t, err)
	_, dialErr := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(st.APIServerPort), time.Second)
	require.Error(t, dialErr, "the API server port is closed after Down")

	require.NoError(t, p.Up(ctx))
	c = planeClient(t, p)
	got := &clusterv1.Cluster{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cluster), got))
	require.Equal(t, cluster.UID, got.UID, "the very same object is back, not a re-created one")
}

func TestPlane_UpIsIdempotentOnARunningPlane(t *testing.T) {
	p := newPlane(t)
	ctx := context.Background()
	require.NoError(t, p.Up(ctx))
	before := p.Running()
	require.Contains(t, before, "kube-apiserver")
	require.NoError(t, p.Up(ctx))
	require.Equal(t, before, p.Running(), "a second Up restarts nothing")
}

func TestPlane_RestartsAComponentThatDied(t *testing.T) {
	p := newPlane(t)
	ctx := context.Background()
	require.NoError(t, p.Up(ctx))
	require.NoError(t, stopProcess(p.pidPath(apiName), stopGrace))
	require.NotContains(t, p.Running(), apiName)
	require.NoError(t, p.Up(ctx))
	require.Contains(t, p.Running(), apiName)
	require.NoError(t, planeClient(t, p).List(ctx, &clusterv1.ClusterList{}))
}

func TestPlane_GarbageCollectsDependents(t *testing.T) {
	if _, err := k8sbin.Path(kcmName); err != nil {
		t.Skipf("kube-controller-manager not built (run 'make k8s-binaries'): %v", err)
	}
	p := newPlane(t)
	ctx := context.Background()
	require.NoError(t, p.Up(ctx))
	c := planeClient(t, p)

	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "default"}}
	require.NoError(t, c.Create(ctx, owner))
	dependent := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "dependent", Namespace: "default",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}},
	}}
	require.NoError(t, c.Create(ctx, dependent))
	require.NoError(t, c.Delete(ctx, owner))
	envtest.WaitFor(t, 60*time.Second, "the dependent ConfigMap to be garbage collected", func() (bool, error) {
		err := c.Get(ctx, client.ObjectKeyFromObject(dependent), &corev1.ConfigMap{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
}

func TestStopProcess_IgnoresARecycledPID(t *testing.T) {
	dir := t.TempDir()
	pidPath := dir + "/x.pid"
	// Our own pid, recorded with an executable it does not run: must not be signalled.
	record := `{"pid": ` + strconv.Itoa(os.Getpid()) + `, "exe": "/nonexistent/etcd"}`
	require.NoError(t, os.WriteFile(pidPath, []byte(record), 0o644))
	require.Equal(t, 0, runningPID(pidPath))
	require.NoError(t, stopProcess(pidPath, time.Second))
}
