package movetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/capstanctl/move"
)

func TestMove_MovesEveryObjectOfTheNamespaceWithStatusOwnersAndFinalizers(t *testing.T) {
	f := newFixture(t)
	before, stays := snapshot(t, source.Client, f.moves), snapshot(t, source.Client, f.stays)

	r := capstanctl(t, moveArgs(t, f.ns)...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	t.Logf("capstanctl move:\n%s", r.stdout)
	ns := f.ns
	for _, want := range []string{
		"Moving the Cluster API objects of namespace " + ns + " from https://127.0.0.1:",
		"Found 24 objects in the source: Cluster 2, ConfigMap 1, DockerCluster 2, DockerMachine 2, DockerMachineTemplate 2, " +
			"KubeadmConfig 2, KubeadmConfigTemplate 1, KubeadmControlPlane 1, Machine 2, MachineDeployment 1, MachineSet 1, Secret 7\n",
		"Preflight passed: the target serves all 10 Cluster API kinds and holds none of the objects\n",
		"Paused in the source: 1 Cluster (spec.paused), 13 objects (annotation cluster.x-k8s.io/paused)\n",
		"Paused before the move, so they stay paused in the target: Cluster " + ns + "/c2, DockerMachineTemplate " + ns + "/c1-md\n",
		"Copied 24 objects: Cluster 2, ConfigMap 1, DockerCluster 2, DockerMachine 2, DockerMachineTemplate 2, KubeadmConfig 2, " +
			"KubeadmConfigTemplate 1, KubeadmControlPlane 1, Machine 2, MachineDeployment 1, MachineSet 1, Secret 7 (created 24, updated 0, unchanged 0)\n",
		"Resumed in the target: 1 Cluster, 13 objects\n",
		"Deleted 24 objects from the source: Cluster 2,",
		"Move complete: the target management cluster now manages Clusters " + ns + "/c1, " + ns + "/c2\n",
	} {
		require.Contains(t, r.stdout, want)
	}
	requireMoved(t, f, before, stays)

	// Spot checks of what matters most, on top of requireMoved's field-by-field comparison.
	machine := &unstructured.Unstructured{}
	machine.SetGroupVersionKind(before[ns+"/Machine/c1-cp-a"].GroupVersionKind())
	require.NoError(t, target.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "c1-cp-a"}, machine))
	nodeRef, _, _ := unstructured.NestedString(machine.Object, "status", "nodeRef", "name")
	require.Equal(t, "c1-cp-a", nodeRef)
	ca := &corev1.Secret{}
	require.NoError(t, target.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "c1-ca"}, ca))
	require.Equal(t, "cert ca", string(ca.Data["tls.crt"]), "the cluster CA moved, so the target issues no new certificates")

	r = capstanctl(t, moveArgs(t, ns)...)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "holds no Cluster API objects: nothing to move\n", "a second run finds nothing left")
}

// injected is the failure the interrupted runs stop on.
var injected = errors.New("injected failure")

// failAfter returns c failing every call of verb after the first n.
func failAfter(c client.WithWatch, verb string, n int) client.WithWatch {
	calls := 0
	fail := func() error {
		if calls++; calls > n {
			return fmt.Errorf("%s #%d: %w", verb, calls, injected)
		}
		return nil
	}
	var funcs interceptor.Funcs
	switch verb {
	case "create":
		funcs.Create = func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if err := fail(); err != nil {
				return err
			}
			return cl.Create(ctx, obj, opts...)
		}
	case "patch":
		funcs.Patch = func(ctx context.Context, cl client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			if err := fail(); err != nil {
				return err
			}
			return cl.Patch(ctx, obj, p, opts...)
		}
	case "delete":
		funcs.Delete = func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			if err := fail(); err != nil {
				return err
			}
			return cl.Delete(ctx, obj, opts...)
		}
	case "status":
		funcs.SubResourceUpdate = func(ctx context.Context, cl client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			if err := fail(); err != nil {
				return err
			}
			return cl.SubResource(sub).Update(ctx, obj, opts...)
		}
	default:
		panic("unknown verb " + verb)
	}
	return interceptor.NewClient(c, funcs)
}

func TestMove_ResumesAfterAnInterruptionAtAnyStepWithoutDuplicates(t *testing.T) {
	for _, tc := range []struct {
		name string
		// interrupt returns the clients of the first, failing run.
		interrupt func() (src, dst client.WithWatch)
		// wantResumed is in the second run's output.
		wantResumed string
	}{
		{"while pausing the source", func() (client.WithWatch, client.WithWatch) {
			return failAfter(source.Client, "patch", 4), target.Client
		}, "(created 24, updated 0, unchanged 0)"},
		{"while creating copies", func() (client.WithWatch, client.WithWatch) {
			return source.Client, failAfter(target.Client, "create", 9) // the Namespace, then 8 copies
		}, "(created 16, updated 0, unchanged 8)"},
		{"while writing the copies' status", func() (client.WithWatch, client.WithWatch) {
			return source.Client, failAfter(target.Client, "status", 3)
		}, "(created 13, updated 0, unchanged 11)"}, // the 11th copy's status is written now
		{"while resuming the copies", func() (client.WithWatch, client.WithWatch) {
			return source.Client, failAfter(target.Client, "patch", 5)
		}, "(created 0, updated 0, unchanged 24)\nResumed in the target: 1 Cluster, 8 objects\n"},
		{"while deleting from the source", func() (client.WithWatch, client.WithWatch) {
			return failAfter(source.Client, "delete", 6), target.Client
		}, "(created 0, updated 0, unchanged 18)\nResumed in the target: 0 Clusters, 0 objects\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			before, stays := snapshot(t, source.Client, f.moves), snapshot(t, source.Client, f.stays)
			src, dst := tc.interrupt()
			var out strings.Builder
			err := move.Move(context.Background(), src, dst, move.Options{Namespace: f.ns, Out: &out})
			require.ErrorIs(t, err, injected, out.String())
			require.ErrorContains(t, err, "run the same 'capstanctl move' again")
			t.Logf("interrupted run:\n%s\nerror: %v", out.String(), err)

			out.Reset()
			require.NoError(t, move.Move(context.Background(), source.Client, target.Client, move.Options{Namespace: f.ns, Out: &out}), out.String())
			t.Logf("resumed run:\n%s", out.String())
			require.Contains(t, out.String(), tc.wantResumed)
			require.Contains(t, out.String(), "Move complete")
			requireMoved(t, f, before, stays)
		})
	}
}

func TestMove_ReusesCopiesAnEarlierRunLeftAndUpdatesStaleOnes(t *testing.T) {
	f := newFixture(t)
	before, stays := snapshot(t, source.Client, f.moves), snapshot(t, source.Client, f.stays)
	ctx := context.Background()

	// What a run stopped after its first copies leaves: the source paused, and copies of
	// the Cluster and two objects it owns, owner references rewritten, in the target. One
	// copy was edited in the target since.
	plan, err := move.Discover(ctx, source.Client, f.ns)
	require.NoError(t, err)
	_, err = move.PauseSource(ctx, source.Client, plan)
	require.NoError(t, err)
	require.NoError(t, target.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.ns}}))
	moved := map[types.UID]bool{}
	for _, o := range plan.Objects {
		moved[o.GetUID()] = true
	}
	copies := map[types.UID]types.UID{}
	for _, o := range plan.Objects {
		if k := key(o); k != "Cluster/c1" && k != "Secret/c1-ca" && k != "DockerMachineTemplate/c1-cp" {
			continue
		}
		c := move.CopyOf(o)
		refs, err := move.TargetOwnerRefs(o.GetOwnerReferences(), moved, copies)
		require.NoError(t, err)
		c.SetOwnerReferences(refs)
		if key(o) == "Secret/c1-ca" {
			c.SetLabels(map[string]string{"edited-in": "target"})
		}
		require.NoError(t, target.Client.Create(ctx, c), key(o))
		copies[o.GetUID()] = c.GetUID()
	}

	var out strings.Builder
	require.NoError(t, move.Move(ctx, source.Client, target.Client, move.Options{Namespace: f.ns, Out: &out}))
	t.Logf("move:\n%s", out.String())
	require.Contains(t, out.String(), "3 objects copied by an earlier, interrupted move will be reused")
	require.Contains(t, out.String(), "(created 21, updated 1, unchanged 2)")
	requireMoved(t, f, before, stays)
}

func TestMove_PreflightFailsBeforeChangingAnything(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup changes the fixture or the target and returns extra flags.
		setup func(t *testing.T, f *fixture) []string
		want  []string
	}{
		{"a CRD missing in the target", func(t *testing.T, f *fixture) []string {
			f.create(t, true, def{apiVersion: crds.GenericInfrastructureMachineGVK.GroupVersion().String(),
				kind: crds.GenericInfrastructureMachineGVK.Kind, name: "generic", fields: map[string]any{"spec": map[string]any{}}})
			return nil
		}, []string{"the move cannot start; nothing was changed:\n  - the target has no CRD genericinfrastructuremachines.infrastructure.cluster.x-k8s.io " +
			"for the GenericInfrastructureMachine objects: install the providers there first with 'capstanctl init --kubeconfig "}},
		{"an object of the same name in the target", func(t *testing.T, f *fixture) []string {
			ctx := context.Background()
			require.NoError(t, target.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.ns}}))
			require.NoError(t, target.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "c1-ca"}}))
			return nil
		}, []string{"Secret " + "%NS%" + "/c1-ca already exists in the target and is not a copy of the source's: delete it from the target or move another namespace"}},
		{"the target is the source", func(t *testing.T, f *fixture) []string {
			return []string{"--to-kubeconfig", kubeconfigFile(t, source)}
		}, []string{"has the same UID in the source and the target: --to-kubeconfig points at the source management cluster"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			extra := tc.setup(t, f)
			before := snapshot(t, source.Client, append(f.moves, f.stays...))
			r := capstanctl(t, moveArgs(t, f.ns, extra...)...)
			require.Equal(t, 1, r.code, r.stdout)
			t.Logf("stderr: %s", r.stderr)
			for _, want := range tc.want {
				require.Contains(t, r.stderr, strings.ReplaceAll(want, "%NS%", f.ns))
			}
			require.NotContains(t, r.stdout, "Paused")
			requireUnchanged(t, before)
			if tc.name != "the target is the source" {
				var notCopied []*unstructured.Unstructured
				for _, o := range f.moves {
					if key(o) != "Secret/c1-ca" { // the clashing Secret is the target's own
						notCopied = append(notCopied, o)
					}
				}
				requireNothingInTarget(t, notCopied)
			}
		})
	}
}

func TestMove_DryRunPrintsTheOrderAndChangesNothing(t *testing.T) {
	f := newFixture(t)
	before := snapshot(t, source.Client, append(f.moves, f.stays...))
	r := capstanctl(t, moveArgs(t, f.ns, "--dry-run")...)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	t.Logf("capstanctl move --dry-run:\n%s", r.stdout)
	require.Contains(t, r.stdout, "Dry run: would copy these 24 objects in this order, then delete them from the source in the reverse order, Clusters last:\n")
	require.Contains(t, r.stdout, "   1. Cluster c1\n   2. Cluster c2\n")
	require.Contains(t, r.stdout, ". Machine c1-cp-a (owned by KubeadmControlPlane c1)\n")
	require.True(t, strings.HasSuffix(r.stdout, "Dry run: nothing changed\n"))
	order := []string{". Cluster c1\n", ". KubeadmControlPlane c1 ", ". Machine c1-cp-a ", ". KubeadmConfig c1-cp-a ", ". Secret c1-cp-a "}
	for i := 1; i < len(order); i++ {
		require.Less(t, strings.Index(r.stdout, order[i-1]), strings.Index(r.stdout, order[i]), "%q before %q", order[i-1], order[i])
	}
	requireUnchanged(t, before)
	requireNothingInTarget(t, f.moves)
}

func TestMove_NothingToMoveIsNotAnError(t *testing.T) {
	ns := source.CreateNamespace(t, "empty")
	r := capstanctl(t, moveArgs(t, ns)...)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "Namespace "+ns+" of the source holds no Cluster API objects: nothing to move\n")
}

func TestMove_FlagErrorsSayWhatToDo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"move"}, "one of --to-kubeconfig (move to another management cluster; install the providers there first"},
		{[]string{"move", "--to-kubeconfig", "/nonexistent/kubeconfig"}, "--to-kubeconfig: stat /nonexistent/kubeconfig: no such file or directory"},
		{[]string{"move", "--to-kubeconfig", kubeconfigFile(t, target), "--timeout", "0s"}, "--timeout must be positive"},
		{[]string{"move", "--to-kubeconfig", kubeconfigFile(t, target)}, "pass --kubeconfig or set KUBECONFIG"},
		{[]string{"move", "extra"}, "capstanctl move takes no arguments"},
	} {
		r := capstanctl(t, tc.args...)
		require.Equal(t, 1, r.code, "%v: %s", tc.args, r.stdout)
		require.Contains(t, r.stderr, tc.want, "%v", tc.args)
	}
}

func TestMove_CreatesEveryCopyPausedAfterPausingTheSource(t *testing.T) {
	f := newFixture(t)
	pauses, finalizerRemovals, created := 0, 0, map[string]bool{}
	src := interceptor.NewClient(source.Client, interceptor.Funcs{
		Patch: func(ctx context.Context, cl client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			data, err := p.Data(obj)
			require.NoError(t, err)
			if strings.Contains(string(data), `"finalizers":null`) {
				require.Len(t, created, 16, "finalizers are removed once every copy exists")
				finalizerRemovals++
			} else {
				require.Empty(t, created, "the source is paused before anything is copied: %s", data)
				pauses++
			}
			return cl.Patch(ctx, obj, p, opts...)
		},
	})
	dst := interceptor.NewClient(target.Client, interceptor.Funcs{
		Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if u, ok := obj.(*unstructured.Unstructured); ok && move.IsClusterAPIGroup(u.GroupVersionKind().Group) {
				if u.GetKind() == "Cluster" {
					paused, _, _ := unstructured.NestedBool(u.Object, "spec", "paused")
					require.True(t, paused, "Cluster %s is created paused", u.GetName())
				} else {
					require.Contains(t, u.GetAnnotations(), "cluster.x-k8s.io/paused", "%s is created paused", key(u))
				}
				created[key(u)] = true
			}
			return cl.Create(ctx, obj, opts...)
		},
	})
	require.NoError(t, move.Move(context.Background(), src, dst, move.Options{Namespace: f.ns}))
	require.Len(t, created, 16, "every Cluster API object was copied")
	require.Equal(t, 14, pauses, "Cluster c1 and 13 objects; Cluster c2 and DockerMachineTemplate c1-md were paused by the user")
	require.Equal(t, 24, finalizerRemovals)
}
