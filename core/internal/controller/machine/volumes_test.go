package machine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/events"
	"capstan.dev/core/internal/coretest"
	"capstan.dev/core/internal/drainrules"
)

const testCSIDriver = "disk.csi.example"

// createBoundPV creates a CSI PersistentVolume bound to the claim namespace/claim, and, when
// attachedTo is set, an attached VolumeAttachment of it to that Node.
func createBoundPV(t *testing.T, name, namespace, claim, attachedTo string) *storagev1.VolumeAttachment {
	t.Helper()
	ctx := context.Background()
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: testCSIDriver, VolumeHandle: name}},
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: namespace, Name: claim},
		},
	}
	require.NoError(t, env.Client.Create(ctx, pv))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), pv) })
	if attachedTo == "" {
		return nil
	}
	va := &storagev1.VolumeAttachment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: storagev1.VolumeAttachmentSpec{Attacher: testCSIDriver, NodeName: attachedTo,
			Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr.To(name)}},
	}
	require.NoError(t, env.Client.Create(ctx, va))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), va) })
	envtest.UpdateStatus(t, env.Client, va, func() { va.Status.Attached = true })
	return va
}

// csiVolumeName is the attach-detach controller's name of a CSI volume in Node.status.
func csiVolumeName(handle string) corev1.UniqueVolumeName {
	return corev1.UniqueVolumeName("kubernetes.io/csi/" + testCSIDriver + "^" + handle)
}

// TestMachine_VolumeDetachWaitsForVolumeAttachmentsButNotForThePodsTheDrainLeaves deletes a
// Machine whose Node holds three volumes: one of a Pod the drain skips (label skip), one of a
// DaemonSet Pod, both reported in Node.status and by VolumeAttachments, and one of an evicted Pod
// that only its VolumeAttachment reports. The deletion waits for the last one, naming its claim,
// and completes once it detaches, while the other two stay attached with their Pods: without
// any timeout, as nothing else would ever detach them.
func TestMachine_VolumeDetachWaitsForVolumeAttachmentsButNotForThePodsTheDrainLeaves(t *testing.T) {
	counter := &envtest.CallCounter{}
	startControllerWith(t, controllerOptions{wrapRecorder: func(r events.Recorder) events.Recorder { return counter.WrapRecorder(r) }})
	f := newFixture(t)
	ctx := context.Background()
	m, node := f.runningMachine(t, "vols")
	pvName := func(claim string) string { return f.ns + "-" + claim }
	createBoundPV(t, pvName("kept"), f.ns, "kept", node.Name)
	createBoundPV(t, pvName("agent-data"), f.ns, "agent-data", node.Name)
	moved := createBoundPV(t, pvName("moved"), f.ns, "moved", node.Name)
	withClaim := func(claim string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
		}
	}
	createPodOn(t, node.Name, f.ns, "pinned", map[string]string{clusterv1.PodDrainLabel: "skip"}, withClaim("kept"))
	createPodOn(t, node.Name, f.ns, "agent", nil, withClaim("agent-data"), coretest.ControlledBy("DaemonSet", "agents"))
	createPodOn(t, node.Name, f.ns, "app", nil, withClaim("moved"))
	envtest.UpdateStatus(t, env.Client, node, func() {
		node.Status.VolumesAttached = []corev1.AttachedVolume{{Name: csiVolumeName(pvName("kept"))}, {Name: csiVolumeName(pvName("agent-data"))}}
	})

	require.NoError(t, env.Client.Delete(ctx, m))
	want := fmt.Sprintf("Waiting for 1 volumes to detach from Node %s: PersistentVolumeClaim %s/moved", node.Name, f.ns)
	envtest.WaitFor(t, 30*time.Second, "the deletion to wait for the evicted Pod's volume", func() (bool, error) {
		got, err := getMachine(t, m)
		if err != nil {
			return false, err
		}
		c := conditions.Get(got, clusterv1.MachineDeletingCondition)
		if c == nil || c.Reason != clusterv1.MachineDeletingWaitingForVolumeDetachReason || c.Message != want {
			return false, fmt.Errorf("Deleting condition: %+v", c)
		}
		return true, nil
	})
	require.ElementsMatch(t, []string{"pinned", "agent"}, podsLeft(t, f.ns), "the app Pod was evicted")

	envtest.UpdateStatus(t, env.Client, moved, func() { moved.Status.Attached = false })
	waitMachineGone(t, m, 30*time.Second)
	waitNodeGone(t, node)

	// The drain ran again on every pass that waited for the volume; its end is recorded once.
	env.WaitForEvents(t, 30*time.Second, m, ReasonSuccessfulDrainNode, 1)
	_, writes := counter.Snapshot()
	drained := 0
	for _, w := range writes {
		if strings.HasPrefix(w, "event "+ReasonSuccessfulDrainNode+" ") {
			drained++
		}
	}
	require.Equal(t, 1, drained, "Events recorded: %v", writes)
}

// TestAttachedVolumes_NamesWhatIsWaitedFor: volumes are matched to PersistentVolumes by CSI
// handle or VolumeAttachment; the claims of the Pods the drain leaves are not waited for, every
// other attached volume is, named by claim, by PersistentVolume, or by its raw name.
func TestAttachedVolumes_NamesWhatIsWaitedFor(t *testing.T) {
	pv := func(name, claimNS, claim string) corev1.PersistentVolume {
		p := corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: testCSIDriver, VolumeHandle: name}}}}
		if claim != "" {
			p.Spec.ClaimRef = &corev1.ObjectReference{Namespace: claimNS, Name: claim}
		}
		return p
	}
	pod := func(name string, behavior clusterv1.MachineDrainRuleDrainBehavior, volumes ...corev1.Volume) drainrules.PodDrain {
		return drainrules.PodDrain{Behavior: behavior, Pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
			Spec: corev1.PodSpec{Volumes: volumes}}}
	}
	claim := func(name string) corev1.Volume {
		return corev1.Volume{Name: "v", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}
	}
	ephemeral := corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}}
	ignored := claimsOfPodsLeft([]drainrules.PodDrain{
		pod("skipped", clusterv1.MachineDrainRuleDrainBehaviorSkip, claim("skipped-data"), ephemeral),
		pod("batch", clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted, claim("batch-data")),
		pod("web", clusterv1.MachineDrainRuleDrainBehaviorDrain, claim("web-data")),
	})
	require.Equal(t, sets.New("ns/skipped-data", "ns/skipped-scratch", "ns/batch-data"), ignored)

	got := attachedVolumes(
		[]corev1.PersistentVolume{pv("pv-skipped", "ns", "skipped-data"), pv("pv-eph", "ns", "skipped-scratch"),
			pv("pv-batch", "ns", "batch-data"), pv("pv-web", "ns", "web-data"), pv("pv-unbound", "", ""), pv("pv-idle", "ns", "idle")},
		sets.New(string(csiVolumeName("pv-skipped")), string(csiVolumeName("pv-web")), "kubernetes.io/aws-ebs/vol-1"),
		sets.New("pv-eph", "pv-batch", "pv-unbound", "pv-gone"),
		ignored)
	require.ElementsMatch(t, []string{
		"PersistentVolumeClaim ns/web-data",
		"PersistentVolume pv-unbound",
		"kubernetes.io/aws-ebs/vol-1",
		"PersistentVolume pv-gone (of a VolumeAttachment; no such PersistentVolume)",
	}, got)
}
