package contract

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/version"
)

// IsProvisioning reports whether the control plane is being created for the first
// time: it has not reported status.version yet (upstream's contract IsProvisioning).
func (c ControlPlaneContract) IsProvisioning(obj *unstructured.Unstructured) (bool, error) {
	_, err := c.StatusVersion().Get(obj)
	if errors.Is(err, ErrFieldNotFound) {
		return true, nil
	}
	return false, err
}

// IsUpgrading reports whether spec.version is newer than status.version (build
// metadata included in the comparison, as upstream). A control plane without
// status.version is provisioning, not upgrading.
func (c ControlPlaneContract) IsUpgrading(obj *unstructured.Unstructured) (bool, error) {
	spec, err := c.Version().Get(obj)
	if err != nil {
		return false, err
	}
	status, err := c.StatusVersion().Get(obj)
	if errors.Is(err, ErrFieldNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	specV, err := ParseKubernetesVersion(*spec)
	if err != nil {
		return false, fmt.Errorf("%s: spec.version %q is not a Kubernetes version: %w", describe(obj), *spec, err)
	}
	statusV, err := ParseKubernetesVersion(*status)
	if err != nil {
		return false, fmt.Errorf("%s: status.version %q is not a Kubernetes version: %w", describe(obj), *status, err)
	}
	return specV.GreaterThan(statusV) || (specV.EqualTo(statusV) && specV.BuildMetadata() != statusV.BuildMetadata()), nil
}

// ParseKubernetesVersion reads a full semantic version (keeping pre-release and build
// metadata) and, failing that, a generic one such as "1.37" (upstream's ParseTolerant).
func ParseKubernetesVersion(s string) (*version.Version, error) {
	if v, err := version.ParseSemantic(s); err == nil {
		return v, nil
	}
	return version.ParseGeneric(s)
}

// IsScaling reports whether the control plane is still converging on spec.replicas, as
// upstream's contract IsScaling: status.replicas, the up-to-date count (upToDateReplicas under
// v1beta2, updatedReplicas under v1beta1) and the available count (availableReplicas under
// v1beta2, readyReplicas with no unavailableReplicas under v1beta1) must all equal spec.replicas.
// A count not reported yet means scaling. A control plane without spec.replicas (one that has no
// Machines) never scales.
func (c ControlPlaneContract) IsScaling(obj *unstructured.Unstructured, v ContractVersion) (bool, error) {
	want, err := c.Replicas().Get(obj)
	if errors.Is(err, ErrFieldNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	counts := []Int64Field{c.StatusReplicas(), c.UpToDateReplicas(v), c.AvailableReplicas(v)}
	if v == V1Beta1 {
		counts = []Int64Field{c.StatusReplicas(), c.UpdatedReplicas(v), c.ReadyReplicas()}
	}
	for _, f := range counts {
		got, err := f.Get(obj)
		if errors.Is(err, ErrFieldNotFound) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if *got != *want {
			return true, nil
		}
	}
	if v != V1Beta1 {
		return false, nil
	}
	unavailable, err := c.UnavailableReplicas(v).Get(obj)
	switch {
	case errors.Is(err, ErrFieldNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	return *unavailable > 0, nil
}
