package machineset

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/owner"
	"capstan.dev/core/internal/machineindex"
)

// AutoscalerMinSizeAnnotation is the cluster-autoscaler's minimum node group size. When
// spec.replicas is unset, a MachineSet wants this many Machines (1 without the annotation).
const AutoscalerMinSizeAnnotation = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size"

// DesiredReplicas is the number of Machines a MachineSet wants: spec.replicas, or, when unset,
// the autoscaler's minimum size, or 1.
func DesiredReplicas(replicas *int32, annotations map[string]string) int32 {
	if replicas != nil {
		return *replicas
	}
	if v, err := strconv.ParseInt(annotations[AutoscalerMinSizeAnnotation], 10, 32); err == nil && v >= 0 {
		return int32(v)
	}
	return 1
}

// cachedMachines reads the MachineSet's Machines from the cache, adopting the orphans its
// spec.selector matches and releasing the owned Machines it no longer matches (adoptAndRelease).
// It reads them through the cache's controller index (machineindex): its own Machines and the
// Cluster's orphans, not every Machine of the Cluster, so a reconcile costs the same in a
// Cluster of ten Machines and of a thousand.
func (r *Reconciler) cachedMachines(ctx context.Context, s *scope) ([]*clusterv1.Machine, error) {
	ms := s.ms
	owned, err := machineindex.OwnedBy(ctx, r.Client, ms.Namespace, string(ms.UID))
	if err != nil {
		return nil, fmt.Errorf("listing the Machines of MachineSet %s/%s: %w", ms.Namespace, ms.Name, err)
	}
	orphans, err := machineindex.OwnedBy(ctx, r.Client, ms.Namespace, machineindex.NoController,
		client.MatchingLabels{clusterv1.ClusterNameLabel: ms.Spec.ClusterName})
	if err != nil {
		return nil, fmt.Errorf("listing the orphan Machines of Cluster %s/%s: %w", ms.Namespace, ms.Spec.ClusterName, err)
	}
	return r.adoptAndRelease(ctx, s, append(owned, orphans...))
}

// adoptAndRelease returns, sorted by name, the Machines among candidates that the MachineSet
// owns: those it controls and still matches, those it controls that are being deleted, and the
// orphans of its Cluster that its spec.selector matches, which it adopts; the Machines it
// controls but no longer matches are released. candidates may be a cache's own data: they are
// only read, and what is returned or patched is a copy.
//
// Adoption and release patch ownerReferences with an optimistic lock, so two MachineSets racing
// for one orphan cannot both win: the loser gets a conflict and retries.
func (r *Reconciler) adoptAndRelease(ctx context.Context, s *scope, candidates []clusterv1.Machine) ([]*clusterv1.Machine, error) {
	log := ctrl.LoggerFrom(ctx)
	ms := s.ms
	var owned []*clusterv1.Machine
	for i := range candidates {
		shared := &candidates[i] // possibly the cache's own data: read, never written
		matches := s.selector.Matches(labels.Set(shared.Labels))
		ref := metav1.GetControllerOf(shared)
		if !(ref != nil && ref.UID == ms.UID) && !(ref == nil && matches) {
			continue // another MachineSet's, or not this one's to adopt
		}
		m := shared.DeepCopy()
		switch {
		case ref != nil && ref.UID == ms.UID:
			// A deleting Machine is kept even if relabelled: it still counts until it is gone.
			if matches || !m.DeletionTimestamp.IsZero() {
				owned = append(owned, m)
				continue
			}
			log.Info("Releasing Machine that no longer matches spec.selector", "Machine", klog.KObj(m))
			if err := r.release(ctx, ms, m); err != nil {
				return nil, err
			}
		case ref == nil && matches && m.DeletionTimestamp.IsZero() && m.Spec.ClusterName == ms.Spec.ClusterName:
			log.Info("Adopting Machine that matches spec.selector", "Machine", klog.KObj(m))
			if err := r.adopt(ctx, ms, m); err != nil {
				return nil, err
			}
			owned = append(owned, m)
		}
	}
	sort.Slice(owned, func(i, j int) bool { return owned[i].Name < owned[j].Name })
	return owned, nil
}

// liveMachines reads (adopting and releasing) the MachineSet's Machines from the API server,
// for the decision to create or delete Machines. Only the Machines of the Cluster that spec.selector matches are listed: those
// the MachineSet owns and those it could adopt. Listing the whole Cluster made each scaling
// decision cost the API server (and this manager's decoding) every Machine of the Cluster, which
// a rollout of many MachineSets paid on every step. The owned Machines that no longer match but
// are still being deleted count until they are gone; they come from the cached read (readMachines
// released the others).
func (r *Reconciler) liveMachines(ctx context.Context, s *scope) ([]*clusterv1.Machine, error) {
	cluster, err := labels.NewRequirement(clusterv1.ClusterNameLabel, selection.Equals, []string{s.ms.Spec.ClusterName})
	if err != nil {
		return nil, fmt.Errorf("selecting the Machines of Cluster %s: %w", s.ms.Spec.ClusterName, err)
	}
	list := &clusterv1.MachineList{}
	if err := r.APIReader.List(ctx, list, client.InNamespace(s.ms.Namespace),
		client.MatchingLabelsSelector{Selector: s.selector.Add(*cluster)}); err != nil {
		return nil, fmt.Errorf("listing Machines of Cluster %s/%s: %w", s.ms.Namespace, s.ms.Spec.ClusterName, err)
	}
	live, err := r.adoptAndRelease(ctx, s, list.Items)
	if err != nil {
		return nil, err
	}
	listed := make(map[types.UID]bool, len(live))
	for _, m := range live {
		listed[m.UID] = true
	}
	for _, m := range s.machines {
		if deleting(m) && !listed[m.UID] && !s.selector.Matches(labels.Set(m.Labels)) {
			live = append(live, m)
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i].Name < live[j].Name })
	return live, nil
}

func (r *Reconciler) adopt(ctx context.Context, ms *clusterv1.MachineSet, m *clusterv1.Machine) error {
	base := m.DeepCopy()
	m.OwnerReferences = append(m.OwnerReferences, controllerRef(ms))
	if err := r.Client.Patch(ctx, m, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("adopting Machine %s: %w", m.Name, err)
	}
	return nil
}

func (r *Reconciler) release(ctx context.Context, ms *clusterv1.MachineSet, m *clusterv1.Machine) error {
	base := m.DeepCopy()
	m.OwnerReferences = owner.WithoutUID(m.OwnerReferences, ms.UID)
	if err := r.Client.Patch(ctx, m, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("releasing Machine %s: %w", m.Name, err)
	}
	return nil
}

// controllerRef is the ownerReference that makes ms the controller of a Machine.
func controllerRef(ms *clusterv1.MachineSet) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         clusterv1.GroupVersion.String(),
		Kind:               "MachineSet",
		Name:               ms.Name,
		UID:                ms.UID,
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}
}

// ownerDeployment returns the MachineDeployment that controls ms (OwningMachineDeployment).
func (r *Reconciler) ownerDeployment(ctx context.Context, ms *clusterv1.MachineSet) (*clusterv1.MachineDeployment, error) {
	return OwningMachineDeployment(ctx, r.Client, ms)
}

// OwningMachineDeployment returns the MachineDeployment that controls ms, read through c, or nil
// when there is none or it cannot be found.
func OwningMachineDeployment(ctx context.Context, c client.Reader, ms *clusterv1.MachineSet) (*clusterv1.MachineDeployment, error) {
	ref := metav1.GetControllerOf(ms)
	if ref == nil || ref.Kind != "MachineDeployment" || !isClusterGroup(ref.APIVersion) {
		return nil, nil
	}
	md := &clusterv1.MachineDeployment{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ms.Namespace, Name: ref.Name}, md); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("reading MachineDeployment %s/%s: %w", ms.Namespace, ref.Name, err)
	}
	if md.UID != ref.UID {
		return nil, nil
	}
	return md, nil
}

// deleting reports whether m is being deleted.
func deleting(m *clusterv1.Machine) bool { return !m.DeletionTimestamp.IsZero() }

// ownedMachines lists, through reader, the Machines ms controls, whatever their labels.
func (r *Reconciler) ownedMachines(ctx context.Context, s *scope, reader client.Reader) ([]*clusterv1.Machine, error) {
	list := &clusterv1.MachineList{}
	if err := reader.List(ctx, list, client.InNamespace(s.ms.Namespace)); err != nil {
		return nil, fmt.Errorf("listing Machines in namespace %s: %w", s.ms.Namespace, err)
	}
	var out []*clusterv1.Machine
	for i := range list.Items {
		if ref := metav1.GetControllerOf(&list.Items[i]); ref != nil && ref.UID == s.ms.UID {
			out = append(out, &list.Items[i])
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
