package machineset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/version"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/external"
)

// preflightFailedRequeue is how soon failed preflight checks are run again: the control
// plane is not watched, as upstream.
const preflightFailedRequeue = 15 * time.Second

// kubernetesMinorSkew is how many minor versions a Machine may be older than the control
// plane (upstream's KubernetesVersionSkew check, after the kubelet skew policy).
const kubernetesMinorSkew = 3

// ParsePreflightChecks reads the --machineset-preflight-checks flag: "All", a list of
// check names, or nothing (no check runs). An unknown name is an error listing the known.
func ParsePreflightChecks(names []string) (sets.Set[clusterv1.MachineSetPreflightCheck], error) {
	known := sets.New(clusterv1.MachineSetPreflightChecks...).Insert(clusterv1.MachineSetPreflightCheckAll)
	out := sets.New[clusterv1.MachineSetPreflightCheck]()
	for _, n := range names {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		c := clusterv1.MachineSetPreflightCheck(n)
		if !known.Has(c) {
			var names []string
			for _, k := range clusterv1.MachineSetPreflightChecks {
				names = append(names, string(k))
			}
			return nil, fmt.Errorf("unknown MachineSet preflight check %q: use All or any of %s", n, strings.Join(names, ", "))
		}
		out.Insert(c)
	}
	return out, nil
}

// runPreflightChecks runs, before Machines are created or remediated, the enabled checks
// that neither the MachineSet's nor its MachineDeployment's skip annotation skips, against
// the Cluster's control plane read through the contract. It returns what failed, each
// naming its check; nothing when the checks pass or cannot apply (no controlPlaneRef, or a
// control plane without spec.version), as upstream.
func (r *Reconciler) runPreflightChecks(ctx context.Context, s *scope) ([]string, error) {
	skipped := skippedPreflightChecks(s)
	run := func(c clusterv1.MachineSetPreflightCheck) bool {
		enabled := r.PreflightChecks.Has(clusterv1.MachineSetPreflightCheckAll) || r.PreflightChecks.Has(c)
		return enabled && !skipped.Has(clusterv1.MachineSetPreflightCheckAll) && !skipped.Has(c)
	}
	ref := s.cluster.Spec.ControlPlaneRef
	if !ref.IsDefined() || !slices.ContainsFunc(clusterv1.MachineSetPreflightChecks, run) {
		return nil, nil
	}
	cp, _, err := external.Get(ctx, r.Client, ref, s.cluster.Namespace)
	if apierrors.IsNotFound(err) {
		return []string{fmt.Sprintf("%s %s/%s (spec.controlPlaneRef of Cluster %s) does not exist", ref.Kind, s.cluster.Namespace, ref.Name, s.cluster.Name)}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s %s for the preflight checks: %w", ref.Kind, ref.Name, err)
	}
	cpVersionStr, err := contract.ControlPlane().Version().Get(cp)
	if errors.Is(err, contract.ErrFieldNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cpVersion, err := contract.ParseKubernetesVersion(*cpVersionStr)
	if err != nil {
		return nil, fmt.Errorf("%s %s: spec.version %q: %w", cp.GetKind(), cp.GetName(), *cpVersionStr, err)
	}
	var failed []string
	if run(clusterv1.MachineSetPreflightCheckControlPlaneIsStable) {
		msg, err := controlPlaneStableCheck(cp, s.cluster, *cpVersionStr)
		if err != nil {
			return nil, err
		}
		failed = appendIf(failed, msg)
	}
	if msVersionStr := s.ms.Spec.Template.Spec.Version; msVersionStr != "" {
		msVersion, err := contract.ParseKubernetesVersion(msVersionStr)
		if err != nil {
			return nil, fmt.Errorf("spec.template.spec.version %q: %w", msVersionStr, err)
		}
		if run(clusterv1.MachineSetPreflightCheckKubernetesVersionSkew) {
			failed = appendIf(failed, kubernetesVersionSkewCheck(cpVersion, msVersion))
		}
		if run(clusterv1.MachineSetPreflightCheckKubeadmVersionSkew) {
			failed = appendIf(failed, kubeadmVersionSkewCheck(cpVersion, msVersion, s.ms))
		}
		if run(clusterv1.MachineSetPreflightCheckControlPlaneVersionSkew) {
			failed = appendIf(failed, controlPlaneVersionSkewCheck(s.cluster, *cpVersionStr, msVersionStr))
		}
	}
	return failed, nil
}

func appendIf(list []string, msg string) []string {
	if msg == "" {
		return list
	}
	return append(list, msg)
}

// controlPlaneStableCheck fails while the control plane is provisioning or upgrading, and, for
// a Cluster with a managed topology, while spec.topology.version is not yet the control plane's
// spec.version (the topology controller has an upgrade of it pending), as upstream: a Machine
// created then would be replaced as soon as the upgrade reaches its MachineSet.
func controlPlaneStableCheck(cp *unstructured.Unstructured, cluster *clusterv1.Cluster, cpVersion string) (string, error) {
	name := fmt.Sprintf("%s %s/%s", cp.GetKind(), cp.GetNamespace(), cp.GetName())
	if cluster.Spec.Topology.IsDefined() && cluster.Spec.Topology.Version != cpVersion {
		return fmt.Sprintf("%s has a pending version upgrade to %s (spec.topology.version of Cluster %s) (%q preflight check failed)",
			name, cluster.Spec.Topology.Version, cluster.Name, clusterv1.MachineSetPreflightCheckControlPlaneIsStable), nil
	}
	provisioning, err := contract.ControlPlane().IsProvisioning(cp)
	if err != nil {
		return "", err
	}
	if provisioning {
		return fmt.Sprintf("%s is provisioning (%q preflight check failed)", name, clusterv1.MachineSetPreflightCheckControlPlaneIsStable), nil
	}
	upgrading, err := contract.ControlPlane().IsUpgrading(cp)
	if err != nil {
		return "", err
	}
	if upgrading {
		return fmt.Sprintf("%s is upgrading (%q preflight check failed)", name, clusterv1.MachineSetPreflightCheckControlPlaneIsStable), nil
	}
	return "", nil
}

func kubernetesVersionSkewCheck(cp, ms *version.Version) string {
	switch {
	case ms.Minor() > cp.Minor():
		return fmt.Sprintf("MachineSet version (%s) is higher than the control plane version (%s), which the Kubernetes version skew policy does not allow (%q preflight check failed)",
			ms, cp, clusterv1.MachineSetPreflightCheckKubernetesVersionSkew)
	case ms.Minor()+kubernetesMinorSkew < cp.Minor():
		return fmt.Sprintf("MachineSet version (%s) is more than %d minor versions older than the control plane version (%s), which the Kubernetes version skew policy does not allow (%q preflight check failed)",
			ms, kubernetesMinorSkew, cp, clusterv1.MachineSetPreflightCheckKubernetesVersionSkew)
	}
	return ""
}

// kubeadmVersionSkewCheck applies only to Machines bootstrapped by kubeadm, which joins
// only at the control plane's minor version.
func kubeadmVersionSkewCheck(cp, ms *version.Version, set *clusterv1.MachineSet) string {
	ref := set.Spec.Template.Spec.Bootstrap.ConfigRef
	if ref.Kind != "KubeadmConfigTemplate" || ref.APIGroup != clusterv1.GroupVersionBootstrap.Group || ms.Minor() == cp.Minor() {
		return ""
	}
	return fmt.Sprintf("MachineSet version (%s) and control plane version (%s) differ in their minor version, and kubeadm joins only at the control plane's minor version (%q preflight check failed)",
		ms, cp, clusterv1.MachineSetPreflightCheckKubeadmVersionSkew)
}

// controlPlaneVersionSkewCheck applies only to Clusters with a managed topology, whose
// MachineSets follow the control plane's version: a Machine of another version than the
// control plane's would be replaced as soon as the topology moves its MachineSet (upstream).
func controlPlaneVersionSkewCheck(cluster *clusterv1.Cluster, cpVersion, msVersion string) string {
	if !cluster.Spec.Topology.IsDefined() || cpVersion == msVersion {
		return ""
	}
	return fmt.Sprintf("MachineSet version (%s) is not yet the control plane version (%s): waiting for the topology to move the MachineSet to it (%q preflight check failed)",
		msVersion, cpVersion, clusterv1.MachineSetPreflightCheckControlPlaneVersionSkew)
}

// skippedPreflightChecks reads the skip annotation of the MachineSet and of its
// MachineDeployment (which does not copy its own annotations to its MachineSets).
func skippedPreflightChecks(s *scope) sets.Set[clusterv1.MachineSetPreflightCheck] {
	out := sets.New[clusterv1.MachineSetPreflightCheck]()
	values := []string{s.ms.Annotations[clusterv1.MachineSetSkipPreflightChecksAnnotation]}
	if s.deployment != nil {
		values = append(values, s.deployment.Annotations[clusterv1.MachineSetSkipPreflightChecksAnnotation])
	}
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				out.Insert(clusterv1.MachineSetPreflightCheck(name))
			}
		}
	}
	return out
}

// preflightBlockedMessage says which checks hold an action and how to get past them.
func preflightBlockedMessage(failed []string) string {
	return fmt.Sprintf("waiting for preflight checks to pass: %s; they are run again every %s, or skip them with the annotation %s "+
		"(e.g. \"%s\" or \"All\") on the MachineSet or its MachineDeployment",
		strings.Join(failed, "; "), preflightFailedRequeue, clusterv1.MachineSetSkipPreflightChecksAnnotation, clusterv1.MachineSetPreflightCheckControlPlaneIsStable)
}
