package machine

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/core/internal/drainrules"
)

// waitForVolumeDetach waits, after the drain, until the volumes attached to the Node are
// detached: those the Node reports in status.volumesAttached and those VolumeAttachments attach
// to it, as upstream since 1.9 (a CSI volume is detached when its VolumeAttachment is, which the
// Node's status may report late or, for some drivers, never). The volumes of the Pods the drain
// leaves on the Node on purpose are not waited for: they stay attached as long as their Pods run,
// so waiting would hold the deletion until nodeVolumeDetachTimeoutSeconds, forever by default.
// An unreachable Node is not waited for either: its kubelet, which unmounts the volumes, is gone.
func (r *Reconciler) waitForVolumeDetach(ctx context.Context, s *scope, c client.Client, node *corev1.Node, now time.Time) (ctrl.Result, bool, error) {
	m := s.machine
	if _, skip := m.Annotations[clusterv1.ExcludeWaitForNodeVolumeDetachAnnotation]; skip || drainrules.IsNodeUnreachable(node) {
		return ctrl.Result{}, true, nil
	}
	if timeoutPassed(m.Status.Deletion.WaitForNodeVolumeDetachStartTime, m.Spec.Deletion.NodeVolumeDetachTimeoutSeconds, now) {
		ctrl.LoggerFrom(ctx).Info("Volume detach timed out: continuing the deletion", "Node", node.Name)
		return ctrl.Result{}, true, nil
	}
	rules, err := drainrules.MatchingRules(ctx, r.Client, m, s.cluster)
	if err != nil {
		s.deleting = deletingStatus{clusterv1.MachineDeletingWaitingForVolumeDetachReason,
			fmt.Sprintf("Cannot tell which volumes of Node %s to wait for: %v", node.Name, err)}
		return ctrl.Result{RequeueAfter: r.drainRequeue()}, false, nil
	}
	waiting, err := volumesToWaitFor(ctx, c, node, rules, now)
	if err != nil || len(waiting) == 0 {
		return ctrl.Result{}, err == nil, err
	}
	if m.Status.Deletion.WaitForNodeVolumeDetachStartTime.IsZero() {
		m.Status.Deletion.WaitForNodeVolumeDetachStartTime = metav1.NewTime(now)
	}
	s.deleting = deletingStatus{clusterv1.MachineDeletingWaitingForVolumeDetachReason,
		fmt.Sprintf("Waiting for %d volumes to detach from Node %s: %s", len(waiting), node.Name, drainrules.BoundedList(waiting))}
	return ctrl.Result{RequeueAfter: r.drainRequeue()}, false, nil
}

// volumesToWaitFor names the volumes still attached to the Node that are not used by a Pod the
// drain leaves there: "PersistentVolumeClaim namespace/name" for a bound PersistentVolume,
// "PersistentVolume name" for one without a claim, and the raw name for what matches no
// PersistentVolume (an in-tree or inline volume). Pods, VolumeAttachments and PersistentVolumes
// are read only when something is attached.
func volumesToWaitFor(ctx context.Context, c client.Client, node *corev1.Node, rules []drainrules.Rule, now time.Time) ([]string, error) {
	attachedPVs, inline, err := volumeAttachmentsOf(ctx, c, node.Name)
	if err != nil {
		return nil, err
	}
	nodeVolumes := sets.New[string]()
	for _, v := range node.Status.VolumesAttached {
		nodeVolumes.Insert(string(v.Name))
	}
	if attachedPVs.Len() == 0 && nodeVolumes.Len() == 0 && len(inline) == 0 {
		return nil, nil
	}
	pods, err := drainrules.PodsOnNode(ctx, c, node, rules, now)
	if err != nil {
		return nil, err
	}
	pvs := &corev1.PersistentVolumeList{}
	if err := c.List(ctx, pvs); err != nil {
		return nil, fmt.Errorf("listing PersistentVolumes to match the volumes attached to Node %s: %w", node.Name, err)
	}
	waiting := attachedVolumes(pvs.Items, nodeVolumes, attachedPVs, claimsOfPodsLeft(pods))
	return append(waiting, inline...), nil
}

// volumeAttachmentsOf returns the PersistentVolumes that attached VolumeAttachments attach to
// the Node, and, named, the VolumeAttachments of inline volumes (they have no PersistentVolume).
func volumeAttachmentsOf(ctx context.Context, c client.Client, nodeName string) (sets.Set[string], []string, error) {
	list := &storagev1.VolumeAttachmentList{}
	if err := c.List(ctx, list); err != nil {
		return nil, nil, fmt.Errorf("listing VolumeAttachments to find those of Node %s: %w", nodeName, err)
	}
	pvs := sets.New[string]()
	var inline []string
	for _, va := range list.Items {
		switch {
		case va.Spec.NodeName != nodeName || !va.Status.Attached:
		case va.Spec.Source.PersistentVolumeName != nil:
			pvs.Insert(*va.Spec.Source.PersistentVolumeName)
		default:
			inline = append(inline, "VolumeAttachment "+va.Name)
		}
	}
	return pvs, inline, nil
}

// attachedVolumes matches the Node's attached volumes (by CSI driver and volume handle) and the
// PersistentVolumes of its VolumeAttachments to PersistentVolumes, and names those to wait for
// (see volumesToWaitFor); a PersistentVolume bound to a claim in ignoredClaims is not waited for.
func attachedVolumes(pvs []corev1.PersistentVolume, nodeVolumes, attachedPVs, ignoredClaims sets.Set[string]) []string {
	waiting := sets.New[string]()
	matchedNodeVolumes, matchedPVs := sets.New[string](), sets.New[string]()
	for i := range pvs {
		pv := &pvs[i]
		matched := attachedPVs.Has(pv.Name)
		if matched {
			matchedPVs.Insert(pv.Name)
		}
		if pv.Spec.CSI != nil {
			// The attach-detach controller's name for a CSI volume.
			name := "kubernetes.io/csi/" + pv.Spec.CSI.Driver + "^" + pv.Spec.CSI.VolumeHandle
			if nodeVolumes.Has(name) {
				matchedNodeVolumes.Insert(name)
				matched = true
			}
		}
		ref := pv.Spec.ClaimRef
		switch {
		case !matched:
		case ref == nil || (ref.Kind != "" && ref.Kind != "PersistentVolumeClaim"):
			waiting.Insert("PersistentVolume " + pv.Name)
		case !ignoredClaims.Has(ref.Namespace + "/" + ref.Name):
			waiting.Insert("PersistentVolumeClaim " + ref.Namespace + "/" + ref.Name)
		}
	}
	waiting.Insert(nodeVolumes.Difference(matchedNodeVolumes).UnsortedList()...)
	for _, name := range attachedPVs.Difference(matchedPVs).UnsortedList() {
		waiting.Insert("PersistentVolume " + name + " (of a VolumeAttachment; no such PersistentVolume)")
	}
	return waiting.UnsortedList()
}

// claimsOfPodsLeft are the PersistentVolumeClaims ("namespace/name") of the Pods the drain leaves
// on the Node: Skip (DaemonSet and static Pods, rules and the drain label) and WaitCompleted ones
// still running because the drain timed out or was excluded. A generic ephemeral volume's claim
// is named after its Pod and volume.
func claimsOfPodsLeft(pods []drainrules.PodDrain) sets.Set[string] {
	out := sets.New[string]()
	for _, d := range pods {
		if d.Behavior != clusterv1.MachineDrainRuleDrainBehaviorSkip && d.Behavior != clusterv1.MachineDrainRuleDrainBehaviorWaitCompleted {
			continue
		}
		for _, v := range d.Pod.Spec.Volumes {
			switch {
			case v.PersistentVolumeClaim != nil:
				out.Insert(d.Pod.Namespace + "/" + v.PersistentVolumeClaim.ClaimName)
			case v.Ephemeral != nil:
				out.Insert(d.Pod.Namespace + "/" + d.Pod.Name + "-" + v.Name)
			}
		}
	}
	return out
}
