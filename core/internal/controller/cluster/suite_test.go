package cluster

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/remote"
	"capstan.dev/core/internal/controller/machine"
	"capstan.dev/core/internal/coretest"
)

var env *envtest.Environment

func TestMain(m *testing.M) { os.Exit(coretest.Run(m, &env)) }

// startControllers runs the Cluster controller, and the Machine controller when
// withMachines, in a fresh manager.
func startControllers(t *testing.T, withMachines bool) {
	t.Helper()
	mgr := coretest.NewManager(t, env)
	opts := controller.Options{SkipNameValidation: ptr.To(true)}
	cc, err := remote.SetupWithManager(mgr, remote.Options{
		SecretReader: mgr.GetAPIReader(),
		HealthProbe:  remote.HealthProbeOptions{Interval: time.Second, Timeout: time.Second, FailureThreshold: 3},
		Controller:   opts,
	})
	require.NoError(t, err)
	r := &Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Health: cc}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, opts))
	if withMachines {
		mr := &machine.Reconciler{Client: mgr.GetClient(), Workload: cc, DrainRequeue: time.Second}
		require.NoError(t, mr.SetupWithManager(context.Background(), mgr, opts))
	}
	coretest.StartManager(t, mgr)
}

// newGeneric creates a generic provider object.
func newGeneric(t *testing.T, obj *unstructured.Unstructured, mutate ...func(*unstructured.Unstructured)) *unstructured.Unstructured {
	t.Helper()
	for _, m := range mutate {
		m(obj)
	}
	require.NoError(t, env.Client.Create(context.Background(), obj))
	return obj
}

func refTo(obj *unstructured.Unstructured) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: obj.GroupVersionKind().Group, Kind: obj.GetKind(), Name: obj.GetName()}
}

func getCluster(c *clusterv1.Cluster) (*clusterv1.Cluster, error) {
	got := &clusterv1.Cluster{}
	err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(c), got)
	return got, err
}

// waitCondition waits until the Cluster condition has the status and its
// message contains want.
func waitCondition(t *testing.T, c *clusterv1.Cluster, condType string, status metav1.ConditionStatus, want string) *clusterv1.Cluster {
	t.Helper()
	var got *clusterv1.Cluster
	envtest.WaitFor(t, 30*time.Second, fmt.Sprintf("Cluster %s %s=%s (%q)", c.Name, condType, status, want), func() (bool, error) {
		var err error
		if got, err = getCluster(c); err != nil {
			return false, err
		}
		cond := conditions.Get(got, condType)
		if cond == nil || cond.Status != status || !strings.Contains(cond.Message, want) {
			return false, fmt.Errorf("condition is %+v", cond)
		}
		return true, nil
	})
	return got
}
