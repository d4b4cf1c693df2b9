package clusterresourceset

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	addonsv1 "capstan.dev/contracts/api/addons/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/coretest"
)

// TestClusterResourceSet_SteadyStateWritesNothing reconciles an applied ClusterResourceSet
// (both strategies, two Clusters) again: no write to the management cluster nor to the
// workload clusters, and the binding keeps its resourceVersion.
func TestClusterResourceSet_SteadyStateWritesNothing(t *testing.T) {
	f := newFixture(t)
	f.newCluster("c1", true)
	f.newCluster("c2", true)
	f.newConfigMap("cni", map[string]string{"m": f.workloadConfigMap("cni", "1")})
	f.newSecret("creds", addonsv1.ClusterResourceSetSecretType, map[string]string{"m": f.workloadConfigMap("creds", "1")})
	crs := f.newCRS("steady", addonsv1.ClusterResourceSetStrategyReconcile, configMapRef("cni"), secretRef("creds"))
	other := f.newCRS("other", addonsv1.ClusterResourceSetStrategyApplyOnce, configMapRef("cni"))
	calls := &envtest.CallCounter{Type: &addonsv1.ClusterResourceSet{}, Key: client.ObjectKeyFromObject(crs)}
	otherCalls := &envtest.CallCounter{Type: &addonsv1.ClusterResourceSet{}, Key: client.ObjectKeyFromObject(other)}
	startController(t, controllerOptions{calls: []*envtest.CallCounter{calls, otherCalls}})
	for _, c := range []string{"c1", "c2"} {
		f.waitApplied(c, crs, configMapRef("cni"), secretRef("creds"))
		f.waitApplied(c, other, configMapRef("cni"))
	}
	f.waitCondition(crs, metav1.ConditionTrue, addonsv1.ClusterResourceSetResourcesAppliedReason)
	f.waitCondition(other, metav1.ConditionTrue, addonsv1.ClusterResourceSetResourcesAppliedReason)
	f.reconcileAgain(crs, calls) // let the reconciles the controller's own writes caused drain
	f.reconcileAgain(other, otherCalls)
	_, writes := calls.Snapshot()
	before, err := f.getBinding("c1")
	require.NoError(t, err)

	f.reconcileAgain(crs, calls)
	f.reconcileAgain(other, otherCalls)
	_, gotWrites := calls.Snapshot()
	require.Equal(t, writes, gotWrites, "no writes (Events included) when nothing changed")
	after, err := f.getBinding("c1")
	require.NoError(t, err)
	require.Equal(t, before.ResourceVersion, after.ResourceVersion, "no one wrote the binding")
}

// TestClusterResourceSet_RecoversWhenKilledBetweenApplyingAndRecording runs a controller whose
// binding writes fail, as if the process died right after applying; a new process applies
// the resource again (creating what exists already counts as applied) and records it.
func TestClusterResourceSet_RecoversWhenKilledBetweenApplyingAndRecording(t *testing.T) {
	f := newFixture(t)
	f.newCluster("c1", true)
	f.newConfigMap("cni", map[string]string{"m": f.workloadConfigMap("cni", "1")})
	crs := f.newCRS("cni", addonsv1.ClusterResourceSetStrategyApplyOnce, configMapRef("cni"))

	crashed := errors.New("simulated crash before the binding is written")
	stop := startController(t, controllerOptions{wrapClient: func(c client.Client) client.Client {
		return envtest.Intercept(c, interceptor.Funcs{
			Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				if _, ok := obj.(*addonsv1.ClusterResourceSetBinding); ok {
					return crashed
				}
				return cl.Create(ctx, obj, opts...)
			},
		})
	}})
	f.waitWorkloadConfigMap("cni", "1")
	c := f.waitCondition(crs, metav1.ConditionFalse, addonsv1.ClusterResourceSetResourcesAppliedInternalErrorReason)
	require.Contains(t, c.Message, crashed.Error())
	stop()
	_, err := f.getBinding("c1")
	require.True(t, apierrors.IsNotFound(err), "nothing recorded: %v", err)

	startController(t, controllerOptions{})
	f.waitApplied("c1", crs, configMapRef("cni"))
	f.waitCondition(crs, metav1.ConditionTrue, addonsv1.ClusterResourceSetResourcesAppliedReason)
}

// TestClusterResourceSet_DeletedBindingIsWrittenAgain: the binding is the record of what was
// applied; deleting it makes the controller apply again and write a new one.
func TestClusterResourceSet_DeletedBindingIsWrittenAgain(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	f.newCluster("c1", true)
	f.newConfigMap("cni", map[string]string{"m": f.workloadConfigMap("cni", "1")})
	crs := f.newCRS("cni", addonsv1.ClusterResourceSetStrategyApplyOnce, configMapRef("cni"))
	f.waitApplied("c1", crs, configMapRef("cni"))
	b, err := f.getBinding("c1")
	require.NoError(t, err)
	require.NoError(t, env.Client.Delete(f.ctx, b))
	envtest.WaitFor(t, timeout, "a new binding", func() (bool, error) {
		got, err := f.getBinding("c1")
		return err == nil && got.UID != b.UID && len(got.Spec.Bindings) == 1 && resourceApplied(got.Spec.Bindings[0], configMapRef("cni")), err
	})
}

// TestClusterResourceSet_WaitsForTheWorkloadConnection: while the workload cluster cannot be
// reached the condition says so; once the kubeconfig is fixed, the ClusterCache connects and
// its connect event (not a resync) brings the apply.
func TestClusterResourceSet_WaitsForTheWorkloadConnection(t *testing.T) {
	startController(t, controllerOptions{})
	f := newFixture(t)
	cluster := f.newCluster("c1", true)
	coretest.SetKubeconfigServer(t, env, cluster, coretest.DeadServer)
	f.newConfigMap("cni", map[string]string{"m": f.workloadConfigMap("cni", "1")})
	crs := f.newCRS("cni", addonsv1.ClusterResourceSetStrategyApplyOnce, configMapRef("cni"))
	c := f.waitCondition(crs, metav1.ConditionFalse, addonsv1.ClusterResourceSetResourcesNotAppliedReason)
	require.True(t, strings.HasPrefix(c.Message, "Waiting for the connection to the workload cluster of Cluster c1"), c.Message)

	coretest.SetKubeconfigServer(t, env, cluster, "")
	f.waitWorkloadConfigMap("cni", "1")
	f.waitCondition(crs, metav1.ConditionTrue, addonsv1.ClusterResourceSetResourcesAppliedReason)
}

// TestClusterResourceSet_RunsOnItsOwnRBAC runs the controller as a user holding only the
// controller's RBAC markers and those of the ClusterCache (core/rbac.go).
func TestClusterResourceSet_RunsOnItsOwnRBAC(t *testing.T) {
	cfg := env.UserFromRBACMarkers(t, "capstan-clusterresourceset-rbac-test", "controller.go", "../../../rbac.go")
	startController(t, controllerOptions{cfg: cfg})
	f := newFixture(t)
	f.newCluster("c1", true)
	cm := f.newConfigMap("cni", map[string]string{"m": f.workloadConfigMap("cni", "1")})
	f.newSecret("creds", addonsv1.ClusterResourceSetSecretType, map[string]string{"m": f.workloadConfigMap("creds", "1")})
	crs := f.newCRS("cni", addonsv1.ClusterResourceSetStrategyApplyOnce, configMapRef("cni"), secretRef("creds"))
	f.waitApplied("c1", crs, configMapRef("cni"), secretRef("creds"))
	f.waitCondition(crs, metav1.ConditionTrue, addonsv1.ClusterResourceSetResourcesAppliedReason)
	env.WaitForEvents(t, timeout, crs, ReasonSuccessfulApply, 1) // the markers let it record Events

	require.NoError(t, env.Client.Delete(f.ctx, crs))
	waitGone(t, crs)
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(cm), cm))
	require.Empty(t, cm.OwnerReferences)
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}))
}
