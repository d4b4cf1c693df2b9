/*
Copyright 2026 The Capstan Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1beta1

import (
	"maps"
	"sort"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

// The conversions of the v1beta1 shapes that providers' own v1beta1 kinds reuse (upstream's
// provider types import them from core v1beta1 too).

// ConvertFailureDomainsToHub turns a v1beta1 failure-domain map into the v1beta2 list, sorted by
// name. controlPlane is always set, as upstream, unless restored (the v1beta2 list recorded in
// the conversion data) had that failure domain without it.
func ConvertFailureDomainsToHub(in FailureDomains, restored []clusterv1.FailureDomain) []clusterv1.FailureDomain {
	restoredControlPlane := map[string]*bool{}
	for _, fd := range restored {
		restoredControlPlane[fd.Name] = fd.ControlPlane
	}
	var out []clusterv1.FailureDomain
	for name, fd := range in {
		out = append(out, clusterv1.FailureDomain{
			Name:         name,
			ControlPlane: failureDomainControlPlane(fd.ControlPlane, restoredControlPlane, name),
			Attributes:   maps.Clone(fd.Attributes),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// failureDomainControlPlane is always set on the way up, as upstream, unless the recorded
// v1beta2 failure domain of that name had it unset.
func failureDomainControlPlane(v bool, restored map[string]*bool, name string) *bool {
	if r, ok := restored[name]; ok && r == nil && !v {
		return nil
	}
	return &v
}

// ConvertHubToFailureDomains turns the v1beta2 failure-domain list into the v1beta1 map; an
// empty list is nil.
func ConvertHubToFailureDomains(in []clusterv1.FailureDomain) FailureDomains {
	var out FailureDomains
	for _, fd := range in {
		if out == nil {
			out = FailureDomains{}
		}
		out[fd.Name] = FailureDomainSpec{ControlPlane: conversion.Deref(fd.ControlPlane), Attributes: maps.Clone(fd.Attributes)}
	}
	return out
}

// ConvertObjectMetaToHub converts a template's v1beta1 metadata (labels and annotations).
func ConvertObjectMetaToHub(in ObjectMeta) clusterv1.ObjectMeta { return templateMetaUp(in) }

// ConvertHubToObjectMeta converts a template's v1beta2 metadata (labels and annotations).
func ConvertHubToObjectMeta(in clusterv1.ObjectMeta) ObjectMeta { return templateMetaDown(in) }
