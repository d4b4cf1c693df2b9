package machine

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
)

// SyncPatterns are the regular expressions of --additional-sync-machine-labels and
// --additional-sync-machine-annotations: a Machine label or annotation whose key one of them
// matches (anywhere in the key, as upstream) is put on the Machine's Node too.
type SyncPatterns struct {
	Labels, Annotations []*regexp.Regexp
}

// CompileSyncPatterns compiles the values of the two flags; an invalid expression is an error
// naming its flag.
func CompileSyncPatterns(labels, annotations []string) (SyncPatterns, error) {
	var out SyncPatterns
	for _, f := range []struct {
		flag   string
		values []string
		into   *[]*regexp.Regexp
	}{
		{"--additional-sync-machine-labels", labels, &out.Labels},
		{"--additional-sync-machine-annotations", annotations, &out.Annotations},
	} {
		for _, v := range f.values {
			re, err := regexp.Compile(v)
			if err != nil {
				return SyncPatterns{}, fmt.Errorf("%s: %q is not a regular expression: %w", f.flag, v, err)
			}
			*f.into = append(*f.into, re)
		}
	}
	return out, nil
}

func matchesAny(patterns []*regexp.Regexp, key string) bool {
	for _, re := range patterns {
		if re.MatchString(key) {
			return true
		}
	}
	return false
}

// interruptible reads status.interruptible of the infrastructure machine: nil when it could
// not be read this pass, false when it does not say. A value of the wrong type is reported
// on InfrastructureReady.
func interruptible(s *scope) *bool {
	if s.infraMachine == nil {
		return nil
	}
	v, err := contract.InfrastructureMachine().Interruptible().Get(s.infraMachine)
	switch {
	case err == nil:
		return v
	case errors.Is(err, contract.ErrFieldNotFound):
		return new(bool)
	}
	s.infraErr = err
	return nil
}

// nodeMetadata is the part of a Node's labels and annotations the Machine controller owns.
type nodeMetadata struct {
	labels, annotations map[string]string
}

// commonNodeAnnotations are set on every Node from its Machine and not listed in
// AnnotationsFromMachineAnnotation (upstream's CommonNodeAnnotations): cluster-autoscaler's
// Cluster API provider maps a Node to its Machine and MachineSet through them.
var commonNodeAnnotations = []string{
	clusterv1.ClusterNameAnnotation, clusterv1.ClusterNamespaceAnnotation, clusterv1.MachineAnnotation,
	clusterv1.OwnerKindAnnotation, clusterv1.OwnerNameAnnotation,
}

// trackingAnnotations are the Node annotations in which the Machine controller records what it
// put there: never synced from the Machine, whatever the patterns select.
var trackingAnnotations = sets.New(clusterv1.LabelsFromMachineAnnotation, clusterv1.AnnotationsFromMachineAnnotation,
	clusterv1.TaintsFromMachineAnnotation)

// desiredNodeMetadata is what the Machine puts on its Node, as upstream: the labels of the
// node-role.kubernetes.io, node-restriction.kubernetes.io and node.cluster.x-k8s.io domains
// and those matching --additional-sync-machine-labels; cluster.x-k8s.io/interruptible when the
// infrastructure machine reports status.interruptible; the common annotations (the owner ones
// only while the Machine has a controller owner) and the Machine's annotations matching
// --additional-sync-machine-annotations. interruptible nil means unknown (the infrastructure
// machine could not be read): the label stays as the Node has it.
func desiredNodeMetadata(m *clusterv1.Machine, node *corev1.Node, interruptible *bool, sync SyncPatterns) nodeMetadata {
	want := nodeMetadata{labels: map[string]string{}, annotations: map[string]string{}}
	for k, v := range m.Annotations {
		if matchesAny(sync.Annotations, k) && !trackingAnnotations.Has(k) {
			want.annotations[k] = v
		}
	}
	want.annotations[clusterv1.ClusterNameAnnotation] = m.Spec.ClusterName
	want.annotations[clusterv1.ClusterNamespaceAnnotation] = m.Namespace
	want.annotations[clusterv1.MachineAnnotation] = m.Name
	if owner := metav1.GetControllerOfNoCopy(m); owner != nil {
		want.annotations[clusterv1.OwnerKindAnnotation] = owner.Kind
		want.annotations[clusterv1.OwnerNameAnnotation] = owner.Name
	} else {
		delete(want.annotations, clusterv1.OwnerKindAnnotation)
		delete(want.annotations, clusterv1.OwnerNameAnnotation)
	}
	for k, v := range m.Labels {
		if isManagedLabel(k) || matchesAny(sync.Labels, k) {
			want.labels[k] = v
		}
	}
	switch {
	case interruptible != nil && *interruptible:
		want.labels[clusterv1.InterruptibleLabel] = ""
	case interruptible == nil && trackedOn(node, clusterv1.LabelsFromMachineAnnotation).Has(clusterv1.InterruptibleLabel):
		if v, ok := node.Labels[clusterv1.InterruptibleLabel]; ok {
			want.labels[clusterv1.InterruptibleLabel] = v
		}
	}
	return want
}

func isManagedLabel(key string) bool {
	prefix, _, found := strings.Cut(key, "/")
	if !found {
		return false
	}
	inDomain := func(domain string) bool { return prefix == domain || strings.HasSuffix(prefix, "."+domain) }
	return prefix == clusterv1.NodeRoleLabelPrefix ||
		inDomain(clusterv1.NodeRestrictionLabelDomain) ||
		inDomain(clusterv1.ManagedNodeLabelDomain)
}
