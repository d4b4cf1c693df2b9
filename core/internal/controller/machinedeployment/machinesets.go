package machinedeployment

import (
	"context"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/owner"
	"capstan.dev/core/internal/controller/machineset"
	"capstan.dev/core/internal/machineindex"
	"capstan.dev/core/internal/mdrollout"
)

// selectorFor returns the MachineDeployment's selector. An empty selector would match every
// MachineSet of the namespace; it is read as "the MachineSets this MachineDeployment created"
// (the deployment-name label) instead.
func selectorFor(md *clusterv1.MachineDeployment) (labels.Selector, error) {
	return machineset.SelectorOrDefault(&md.Spec.Selector, clusterv1.MachineDeploymentNameLabel, md.Name)
}

// createdLabels are the labels every MachineSet (and Machine) the MachineDeployment creates
// carries whatever its revision: the template's plus the deployment-name label (see syncInPlace).
func createdLabels(md *clusterv1.MachineDeployment) map[string]string {
	out := map[string]string{}
	for k, v := range md.Spec.Template.Labels {
		out[k] = v
	}
	out[clusterv1.MachineDeploymentNameLabel] = machineset.LabelValue(md.Name)
	return out
}

// getAndAdoptMachineSets lists the MachineSets of the MachineDeployment's Cluster, adopts the
// orphans its selector matches, releases the owned ones it no longer matches, and returns the
// ones it controls, oldest revision first (then oldest, then by name).
func (r *Reconciler) getAndAdoptMachineSets(ctx context.Context, s *scope) ([]*clusterv1.MachineSet, error) {
	log := ctrl.LoggerFrom(ctx)
	md := s.md
	list := &clusterv1.MachineSetList{}
	// The cache's own objects: only those kept or written are copied (copying every
	// MachineSet of the Cluster on each pass was a tenth of the core's CPU in make
	// bench's rollout of 100 MachineDeployments).
	if err := r.Client.List(ctx, list, client.InNamespace(md.Namespace), client.UnsafeDisableDeepCopy,
		client.MatchingLabels{clusterv1.ClusterNameLabel: md.Spec.ClusterName}); err != nil {
		return nil, fmt.Errorf("listing MachineSets of Cluster %s/%s: %w", md.Namespace, md.Spec.ClusterName, err)
	}
	var owned []*clusterv1.MachineSet
	for i := range list.Items {
		shared := &list.Items[i]
		ref := metav1.GetControllerOf(shared)
		if ref == nil && !shared.DeletionTimestamp.IsZero() || ref != nil && ref.UID != md.UID {
			continue // neither ours nor adoptable
		}
		ms := shared.DeepCopy()
		matches := s.selector.Matches(labels.Set(ms.Labels))
		switch {
		case ref != nil && ref.UID == md.UID:
			if matches || !ms.DeletionTimestamp.IsZero() {
				owned = append(owned, ms)
				continue
			}
			log.Info("Releasing MachineSet that no longer matches spec.selector", "MachineSet", klog.KObj(ms))
			if err := r.setOwner(ctx, md, ms, false); err != nil {
				return nil, err
			}
		case ref == nil && matches && ms.DeletionTimestamp.IsZero() && ms.Spec.ClusterName == md.Spec.ClusterName:
			log.Info("Adopting MachineSet that matches spec.selector", "MachineSet", klog.KObj(ms))
			if err := r.setOwner(ctx, md, ms, true); err != nil {
				return nil, err
			}
			owned = append(owned, ms)
		}
	}
	mdrollout.SortByRevision(owned)
	return owned, nil
}

// setOwner adopts (adopt=true) or releases ms, with an optimistic lock so that two
// MachineDeployments racing for one orphan cannot both win.
func (r *Reconciler) setOwner(ctx context.Context, md *clusterv1.MachineDeployment, ms *clusterv1.MachineSet, adopt bool) error {
	base := ms.DeepCopy()
	refs := owner.WithoutUID(ms.OwnerReferences, md.UID)
	if adopt {
		refs = append(refs, controllerRef(md))
	}
	ms.OwnerReferences = refs
	if err := r.Client.Patch(ctx, ms, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("updating the owner of MachineSet %s: %w", ms.Name, err)
	}
	return nil
}

func controllerRef(md *clusterv1.MachineDeployment) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         clusterv1.GroupVersion.String(),
		Kind:               "MachineDeployment",
		Name:               md.Name,
		UID:                md.UID,
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}
}

// listMachines returns the Machines of the given MachineSets from the cache, by MachineSet UID,
// each list sorted by name.
//
// Each MachineSet's Machines are read through the cache's controller index (machineindex) and
// without the cache's deep copy, then copied: walking every Machine of the Cluster on each
// reconcile of each of its MachineDeployments made the core's cost grow with the Cluster's size
// (a sixth of its CPU in the benchmark's rollout of 1,000 Machines, docs/benchmarks.md).
func (r *Reconciler) listMachines(ctx context.Context, md *clusterv1.MachineDeployment, sets []*clusterv1.MachineSet) (map[types.UID][]*clusterv1.Machine, error) {
	out := make(map[types.UID][]*clusterv1.Machine, len(sets))
	for _, ms := range sets {
		shared, err := machineindex.OwnedBy(ctx, r.Client, md.Namespace, string(ms.UID))
		if err != nil {
			return nil, fmt.Errorf("listing the Machines of MachineSet %s/%s: %w", ms.Namespace, ms.Name, err)
		}
		machines := make([]*clusterv1.Machine, 0, len(shared))
		for i := range shared {
			machines = append(machines, shared[i].DeepCopy())
		}
		sort.Slice(machines, func(i, j int) bool { return machines[i].Name < machines[j].Name })
		out[ms.UID] = machines
	}
	return out, nil
}

// hashLabelValue is the machine-template-hash of an existing MachineSet.
func hashLabelValue(ms *clusterv1.MachineSet) string {
	if v, ok := ms.Spec.Selector.MatchLabels[clusterv1.MachineDeploymentUniqueLabel]; ok {
		return v
	}
	return ms.Labels[clusterv1.MachineDeploymentUniqueLabel]
}

// newMachineSet builds the MachineSet for the MachineDeployment's current template.
func newMachineSet(md *clusterv1.MachineDeployment, suffix string, replicas int32) *clusterv1.MachineSet {
	sel := md.Spec.Selector.DeepCopy()
	if sel.MatchLabels == nil {
		sel.MatchLabels = map[string]string{}
	}
	if md.Spec.Selector.IsEmpty() {
		sel.MatchLabels[clusterv1.MachineDeploymentNameLabel] = machineset.LabelValue(md.Name)
	}
	sel.MatchLabels[clusterv1.MachineDeploymentUniqueLabel] = suffix
	ms := &clusterv1.MachineSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            mdrollout.MachineSetName(md, suffix),
			Namespace:       md.Namespace,
			OwnerReferences: []metav1.OwnerReference{controllerRef(md)},
		},
		Spec: clusterv1.MachineSetSpec{
			ClusterName: md.Spec.ClusterName,
			Replicas:    ptr.To(replicas),
			Selector:    *sel,
			Template:    *md.Spec.Template.DeepCopy(),
		},
	}
	ms.Spec.Template.Spec.ClusterName = md.Spec.ClusterName
	ms.Labels = map[string]string{clusterv1.MachineDeploymentUniqueLabel: suffix}
	ms.Spec.Template.Labels = map[string]string{clusterv1.MachineDeploymentUniqueLabel: suffix}
	syncInPlace(md, ms)
	return ms
}

// syncInPlace copies the fields a MachineDeployment changes in place onto its current
// MachineSet: the template's labels and annotations (plus the deployment-name and cluster-name
// labels, keeping the MachineSet's machine-template-hash), minReadySeconds, readinessGates and
// deletion timeouts. The MachineSet then propagates them to its Machines.
func syncInPlace(md *clusterv1.MachineDeployment, ms *clusterv1.MachineSet) {
	hash := hashLabelValue(ms)
	labels := map[string]string{}
	for k, v := range md.Spec.Template.Labels {
		labels[k] = v
	}
	labels[clusterv1.MachineDeploymentNameLabel] = machineset.LabelValue(md.Name)
	// The MachineSet's admission policy adds the cluster-name label to its template; writing it
	// here too keeps the two agreeing for a MachineDeployment stored without it.
	labels[clusterv1.ClusterNameLabel] = md.Spec.ClusterName
	if hash != "" {
		labels[clusterv1.MachineDeploymentUniqueLabel] = hash
	}
	ms.Spec.Template.Labels = labels

	msLabels := map[string]string{}
	for k, v := range ms.Labels {
		msLabels[k] = v
	}
	for k, v := range labels {
		msLabels[k] = v
	}
	msLabels[clusterv1.ClusterNameLabel] = md.Spec.ClusterName
	ms.Labels = msLabels

	ms.Spec.Template.Annotations = nil
	if len(md.Spec.Template.Annotations) > 0 {
		ms.Spec.Template.Annotations = map[string]string{}
		for k, v := range md.Spec.Template.Annotations {
			ms.Spec.Template.Annotations[k] = v
		}
	}
	ms.Spec.Template.Spec.MinReadySeconds = md.Spec.Template.Spec.MinReadySeconds
	ms.Spec.Template.Spec.ReadinessGates = md.Spec.Template.Spec.ReadinessGates
	ms.Spec.Template.Spec.Deletion = md.Spec.Template.Spec.Deletion
	ms.Spec.Template.Spec.Taints = md.Spec.Template.Spec.Taints
}

// createMachineSet creates ms. A MachineSet of that name may already exist when the cache has not
// shown an earlier creation yet: if this MachineDeployment controls it, it is the one to use.
func (r *Reconciler) createMachineSet(ctx context.Context, s *scope, ms *clusterv1.MachineSet) (*clusterv1.MachineSet, error) {
	log := ctrl.LoggerFrom(ctx).WithValues("MachineSet", klog.KObj(ms))
	log.Info("Creating MachineSet", "revision", ms.Annotations[clusterv1.RevisionAnnotation], "replicas", ptr.Deref(ms.Spec.Replicas, 0))
	err := r.Client.Create(ctx, ms)
	if err == nil {
		r.recordCreate(s.md, ms, nil)
		return ms, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		r.recordCreate(s.md, ms, err)
		return nil, fmt.Errorf("creating MachineSet %s: %w", ms.Name, err)
	}
	existing := &clusterv1.MachineSet{}
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(ms), existing); err != nil {
		return nil, fmt.Errorf("reading MachineSet %s: %w", ms.Name, err)
	}
	ref := metav1.GetControllerOf(existing)
	switch {
	case ref == nil || ref.UID != s.md.UID:
		return nil, fmt.Errorf("MachineSet %s/%s already exists and is not controlled by this MachineDeployment: delete or rename it",
			ms.Namespace, ms.Name)
	case !existing.DeletionTimestamp.IsZero():
		s.rolloutBlocked = fmt.Sprintf("waiting for MachineSet %s/%s, which has the current template's name, to finish deleting", ms.Namespace, ms.Name)
		log.Info("Waiting for the MachineSet of the same name to be deleted before creating it again")
		return nil, nil
	}
	log.V(4).Info("MachineSet already exists; the cache had not shown it yet")
	return existing, nil
}
