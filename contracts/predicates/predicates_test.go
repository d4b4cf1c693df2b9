package predicates

import (
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/event"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

func machine(labels, annotations map[string]string) *clusterv1.Machine {
	return &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m", Labels: labels, Annotations: annotations}}
}

func TestResourceNotPausedAndHasFilterLabel(t *testing.T) {
	p := ResourceNotPausedAndHasFilterLabel(logr.Discard(), "team-a")
	require.True(t, p.Create(event.CreateEvent{Object: machine(map[string]string{clusterv1.WatchLabel: "team-a"}, nil)}))
	require.False(t, p.Create(event.CreateEvent{Object: machine(map[string]string{clusterv1.WatchLabel: "team-b"}, nil)}))
	require.False(t, p.Create(event.CreateEvent{Object: machine(nil, nil)}))
	require.False(t, p.Create(event.CreateEvent{Object: machine(map[string]string{clusterv1.WatchLabel: "team-a"},
		map[string]string{clusterv1.PausedAnnotation: ""})}))
	require.True(t, ResourceHasFilterLabel("").Create(event.CreateEvent{Object: machine(nil, nil)}), "no filter keeps all")
}

func TestClusterUpdateTriggersChildren(t *testing.T) {
	base := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
	update := func(mutate func(*clusterv1.Cluster)) bool {
		newC := base.DeepCopy()
		mutate(newC)
		return ClusterUpdateTriggersChildren().Update(event.UpdateEvent{ObjectOld: base, ObjectNew: newC})
	}
	require.False(t, update(func(c *clusterv1.Cluster) { c.Labels = map[string]string{"x": "y"} }), "irrelevant change")
	require.True(t, update(func(c *clusterv1.Cluster) { c.Status.Initialization.InfrastructureProvisioned = ptr.To(true) }))
	require.True(t, update(func(c *clusterv1.Cluster) { c.Status.Initialization.ControlPlaneInitialized = ptr.To(true) }))
	require.True(t, update(func(c *clusterv1.Cluster) {
		c.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: "10.0.0.1", Port: 6443}
	}))
	require.True(t, update(func(c *clusterv1.Cluster) { c.Spec.Paused = ptr.To(true) }), "pause: children set Paused=True")
	require.True(t, update(func(c *clusterv1.Cluster) { c.Annotations = map[string]string{clusterv1.PausedAnnotation: ""} }), "pause by annotation")
	base.Spec.Paused = ptr.To(true)
	require.True(t, update(func(c *clusterv1.Cluster) { c.Spec.Paused = ptr.To(false) }), "unpause")
}

func TestSetPausedCondition_SaysHowToResume(t *testing.T) {
	m := machine(nil, nil)
	cluster := &clusterv1.Cluster{Spec: clusterv1.ClusterSpec{Paused: ptr.To(true)}}
	require.True(t, SetPausedCondition(m, cluster))
	c := conditions.Get(m, clusterv1.PausedCondition)
	require.Equal(t, metav1.ConditionTrue, c.Status)
	require.Contains(t, c.Message, "set it to false to resume")

	require.False(t, SetPausedCondition(m, &clusterv1.Cluster{}))
	require.Equal(t, metav1.ConditionFalse, conditions.Get(m, clusterv1.PausedCondition).Status)

	m.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
	require.True(t, SetPausedCondition(m, &clusterv1.Cluster{}))
	require.Contains(t, conditions.Get(m, clusterv1.PausedCondition).Message, "remove it to resume")
}

func TestIgnoreOwnStatusWrites_DropsOnlyStatusOnlyUpdates(t *testing.T) {
	p := IgnoreOwnStatusWrites()
	old := &clusterv1.MachineDeployment{ObjectMeta: metav1.ObjectMeta{Name: "md", ResourceVersion: "1", Generation: 1,
		Labels: map[string]string{"a": "b"}, Finalizers: []string{"f"}}}
	update := func(mutate func(*clusterv1.MachineDeployment)) bool {
		n := old.DeepCopy()
		n.ResourceVersion = "2"
		mutate(n)
		return p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: n})
	}
	require.False(t, update(func(n *clusterv1.MachineDeployment) { n.Status.Replicas = ptr.To(int32(3)) }), "status only")
	require.True(t, p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: old.DeepCopy()}), "a resync passes")
	require.True(t, update(func(n *clusterv1.MachineDeployment) { n.Generation = 2 }))
	require.True(t, update(func(n *clusterv1.MachineDeployment) { n.Labels["a"] = "c" }))
	require.True(t, update(func(n *clusterv1.MachineDeployment) {
		n.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
	}))
	require.True(t, update(func(n *clusterv1.MachineDeployment) { n.Finalizers = nil }))
	require.True(t, update(func(n *clusterv1.MachineDeployment) { n.OwnerReferences = []metav1.OwnerReference{{Name: "o"}} }))
	require.True(t, update(func(n *clusterv1.MachineDeployment) { n.DeletionTimestamp = &metav1.Time{} }))
	require.True(t, p.Create(event.CreateEvent{Object: old}))
	require.True(t, p.Delete(event.DeleteEvent{Object: old}))
}
