package machine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/coretest"
)

func TestIsManagedLabel(t *testing.T) {
	for key, want := range map[string]bool{
		"node-role.kubernetes.io/worker":         true,
		"node-restriction.kubernetes.io/zone":    true,
		"foo.node-restriction.kubernetes.io/bar": true,
		"node.cluster.x-k8s.io/pool":             true,
		"sub.node.cluster.x-k8s.io/x":            true,
		"app":                                    false,
		"cluster.x-k8s.io/cluster-name":          false,
		"evilnode.cluster.x-k8s.io/x":            false,
	} {
		require.Equal(t, want, isManagedLabel(key), key)
	}
}

// Unit test with the fake client: the Node logic is pure object manipulation.
func TestSyncNode_AddsManagedLabelsRemovesStaleOnesAndTheTaint(t *testing.T) {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1",
			Labels:      map[string]string{"node.cluster.x-k8s.io/old": "x", "kubernetes.io/hostname": "n1"},
			Annotations: map[string]string{clusterv1.LabelsFromMachineAnnotation: "node.cluster.x-k8s.io/old"}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{clusterv1.NodeUninitializedTaint, {Key: "keep", Effect: corev1.TaintEffectNoSchedule}}},
	}
	c := fake.NewClientBuilder().WithObjects(node).Build()
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{
		"node-role.kubernetes.io/worker": "", "app": "web"}}}
	ctx := context.Background()
	cur := &corev1.Node{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "n1"}, cur))
	require.NoError(t, syncNode(ctx, c, m, cur, desiredNodeMetadata(m, cur, nil, SyncPatterns{})))

	got := &corev1.Node{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "n1"}, got))
	require.Equal(t, map[string]string{"node-role.kubernetes.io/worker": "", "kubernetes.io/hostname": "n1"}, got.Labels)
	require.Equal(t, "node-role.kubernetes.io/worker", got.Annotations[clusterv1.LabelsFromMachineAnnotation])
	require.Equal(t, []corev1.Taint{{Key: "keep", Effect: corev1.TaintEffectNoSchedule}}, got.Spec.Taints)

	// In sync: no write.
	rv := got.ResourceVersion
	require.NoError(t, syncNode(ctx, c, m, got, desiredNodeMetadata(m, got, nil, SyncPatterns{})))
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "n1"}, got))
	require.Equal(t, rv, got.ResourceVersion)
}

// TestSyncNode_PutsUpstreamsAnnotationsAndSelectedMetadataAndTakesThemBack: the Node gets the
// annotations cluster-autoscaler reads (cluster, namespace, Machine, controller owner), the
// interruptible label the infrastructure machine asks for and the labels and annotations the
// sync patterns select; when the Machine no longer has them they go, while what others put on
// the Node stays; in sync, nothing is written.
func TestSyncNode_PutsUpstreamsAnnotationsAndSelectedMetadataAndTakesThemBack(t *testing.T) {
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1",
		Labels: map[string]string{"kubernetes.io/hostname": "n1"}, Annotations: map[string]string{"kubeadm.alpha.kubernetes.io/cri-socket": "x"}}}
	c := fake.NewClientBuilder().WithObjects(node).Build()
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "m1", Namespace: "ns1",
			Labels:      map[string]string{"node-role.kubernetes.io/worker": "", "team": "a", "app": "web"},
			Annotations: map[string]string{"backup.example/policy": "daily", "note": "x"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachineSet", Name: "ms1",
				UID: "u1", Controller: ptr.To(true)}}},
		Spec: clusterv1.MachineSpec{ClusterName: "c1"},
	}
	patterns, err := CompileSyncPatterns([]string{"^team$"}, []string{`^backup\.example/`})
	require.NoError(t, err)
	get := func() *corev1.Node {
		got := &corev1.Node{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "n1"}, got))
		return got
	}
	sync := func(interruptible *bool) *corev1.Node {
		cur := get()
		require.NoError(t, syncNode(ctx, c, m, cur, desiredNodeMetadata(m, cur, interruptible, patterns)))
		return get()
	}

	got := sync(ptr.To(true))
	require.Equal(t, map[string]string{"kubernetes.io/hostname": "n1", "node-role.kubernetes.io/worker": "", "team": "a",
		clusterv1.InterruptibleLabel: ""}, got.Labels)
	require.Equal(t, map[string]string{
		"kubeadm.alpha.kubernetes.io/cri-socket":   "x",
		clusterv1.ClusterNameAnnotation:            "c1",
		clusterv1.ClusterNamespaceAnnotation:       "ns1",
		clusterv1.MachineAnnotation:                "m1",
		clusterv1.OwnerKindAnnotation:              "MachineSet",
		clusterv1.OwnerNameAnnotation:              "ms1",
		"backup.example/policy":                    "daily",
		clusterv1.AnnotationsFromMachineAnnotation: "backup.example/policy",
		clusterv1.LabelsFromMachineAnnotation:      clusterv1.InterruptibleLabel + ",node-role.kubernetes.io/worker,team",
		clusterv1.TaintsFromMachineAnnotation:      "",
	}, got.Annotations)

	rv := got.ResourceVersion
	require.Equal(t, rv, sync(ptr.To(true)).ResourceVersion, "in sync: no write")
	require.Equal(t, rv, sync(nil).ResourceVersion, "an unknown interruptible keeps the label: no write")

	m.OwnerReferences, m.Annotations = nil, nil
	delete(m.Labels, "team")
	got = sync(ptr.To(false))
	require.Equal(t, map[string]string{"kubernetes.io/hostname": "n1", "node-role.kubernetes.io/worker": ""}, got.Labels)
	require.Equal(t, map[string]string{
		"kubeadm.alpha.kubernetes.io/cri-socket":   "x",
		clusterv1.ClusterNameAnnotation:            "c1",
		clusterv1.ClusterNamespaceAnnotation:       "ns1",
		clusterv1.MachineAnnotation:                "m1",
		clusterv1.AnnotationsFromMachineAnnotation: "",
		clusterv1.LabelsFromMachineAnnotation:      "node-role.kubernetes.io/worker",
		clusterv1.TaintsFromMachineAnnotation:      "",
	}, got.Annotations)
}

func TestCompileSyncPatterns_NamesTheFlagOfAnInvalidExpression(t *testing.T) {
	_, err := CompileSyncPatterns([]string{"ok"}, []string{"("})
	require.ErrorContains(t, err, `--additional-sync-machine-annotations: "(" is not a regular expression`)
	p, err := CompileSyncPatterns([]string{"^a", "b$"}, nil)
	require.NoError(t, err)
	require.True(t, matchesAny(p.Labels, "xb"))
	require.False(t, matchesAny(p.Labels, "ba"))
}

// TestMachine_NodeCarriesTheMachinesAnnotationsAndTheInterruptibleLabel runs the controller with
// sync patterns: the Node of a MachineSet's Machine on an interruptible instance gets what
// cluster-autoscaler and users read there, as upstream.
func TestMachine_NodeCarriesTheMachinesAnnotationsAndTheInterruptibleLabel(t *testing.T) {
	patterns, err := CompileSyncPatterns([]string{"^team$"}, []string{`^backup\.example/`})
	require.NoError(t, err)
	startControllerWith(t, controllerOptions{sync: patterns})
	f := newFixture(t)
	m, node := f.runningMachine(t, "spot", func(m *clusterv1.Machine) {
		m.Labels = map[string]string{"team": "a", "app": "web"}
		m.Annotations = map[string]string{"backup.example/policy": "daily", "note": "x"}
		m.OwnerReferences = []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachineSet", Name: "workers",
			UID: "11111111-2222-3333-4444-555555555555", Controller: ptr.To(true)}}
	})
	coretest.SetStatus(t, env, crds.New(crds.GenericInfrastructureMachineGVK, f.ns, m.Name), map[string]any{"interruptible": true})

	wantAnnotations := map[string]string{
		clusterv1.ClusterNameAnnotation:      f.cluster.Name,
		clusterv1.ClusterNamespaceAnnotation: f.ns,
		clusterv1.MachineAnnotation:          m.Name,
		clusterv1.OwnerKindAnnotation:        "MachineSet",
		clusterv1.OwnerNameAnnotation:        "workers",
		"backup.example/policy":              "daily",
	}
	envtest.WaitFor(t, 30*time.Second, "the Node to carry the Machine's metadata", func() (bool, error) {
		got := &corev1.Node{}
		if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(node), got); err != nil {
			return false, err
		}
		for k, v := range wantAnnotations {
			if got.Annotations[k] != v {
				return false, fmt.Errorf("annotation %s is %q, want %q", k, got.Annotations[k], v)
			}
		}
		if _, ok := got.Annotations["note"]; ok {
			return false, fmt.Errorf("an annotation no pattern selects was synced")
		}
		_, interruptible := got.Labels[clusterv1.InterruptibleLabel]
		_, app := got.Labels["app"]
		if !interruptible || got.Labels["team"] != "a" || app {
			return false, fmt.Errorf("labels %v", got.Labels)
		}
		return true, nil
	})
}
