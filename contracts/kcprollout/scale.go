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

package kcprollout

import (
	"slices"
	"sort"
	"strings"

	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// Action is what the control plane's Machines step does next.
type Action int

const (
	// None: the Machines are as the spec wants them.
	None Action = iota
	// ScaleUp: one Machine is created.
	ScaleUp
	// ScaleDown: one Machine is deleted.
	ScaleDown
)

// Decide says whether the control plane adds or removes a Machine, from the number of its
// Machines (deleting ones included: they still run an etcd member), spec.replicas and the
// strategy's maxSurge. While a Machine is outdated a rollout runs with desired+maxSurge Machines
// at most: below that it adds an up-to-date Machine, at it it removes one (an outdated one
// first, SelectForScaleDown).
func Decide(current, desired, maxSurge int, anyOutdated bool) Action {
	switch {
	case anyOutdated && current < desired+maxSurge:
		return ScaleUp
	case anyOutdated:
		return ScaleDown
	case current < desired:
		return ScaleUp
	case current > desired:
		return ScaleDown
	}
	return None
}

// Quorum is the number of members an etcd cluster of n needs to agree.
func Quorum(n int) int { return n/2 + 1 }

// ControlPlaneFailureDomains are the names of the Cluster's failure domains open to the control
// plane.
func ControlPlaneFailureDomains(c *clusterv1.Cluster) []string {
	var out []string
	for _, fd := range c.Status.FailureDomains {
		if ptr.Deref(fd.ControlPlane, false) {
			out = append(out, fd.Name)
		}
	}
	return out
}

// FailureDomainForScaleUp returns the failure domain for a new Machine: among the control
// plane's failure domains, the one with the fewest up-to-date Machines (by name on a tie), or ""
// when there is none. Upstream counts up-to-date Machines only, so a rollout refills the domains
// evenly.
func FailureDomainForScaleUp(failureDomains []string, upToDate []*clusterv1.Machine) string {
	if len(failureDomains) == 0 {
		return ""
	}
	names := slices.Clone(failureDomains)
	sort.Strings(names)
	count := map[string]int{}
	for _, m := range upToDate {
		count[m.Spec.FailureDomain]++
	}
	best := names[0]
	for _, n := range names[1:] {
		if count[n] < count[best] {
			best = n
		}
	}
	return best
}

// SelectForScaleDown chooses the Machine to remove, as upstream does. The candidates are the
// first non-empty group of: outdated Machines with the delete-machine annotation, Machines with
// it, outdated Machines, all Machines. Among them, a candidate outside the known failure domains
// goes first (the oldest one's domain); otherwise the domain with the most Machines (all of them
// counted) that holds a candidate. The oldest candidate in that domain is chosen.
func SelectForScaleDown(machines []*clusterv1.Machine, outdated func(*clusterv1.Machine) bool, failureDomains []string) *clusterv1.Machine {
	candidates := scaleDownCandidates(machines, outdated)
	if len(candidates) == 0 {
		return nil
	}
	known := map[string]bool{}
	for _, fd := range failureDomains {
		known[fd] = true
	}
	var unknown []*clusterv1.Machine
	for _, m := range candidates {
		if !known[m.Spec.FailureDomain] {
			unknown = append(unknown, m)
		}
	}
	var domain string
	if len(unknown) > 0 {
		domain = Oldest(unknown).Spec.FailureDomain
	} else {
		domain = fullestDomain(machines, candidates)
	}
	var inDomain []*clusterv1.Machine
	for _, m := range candidates {
		if m.Spec.FailureDomain == domain {
			inDomain = append(inDomain, m)
		}
	}
	return Oldest(inDomain)
}

// scaleDownCandidates is the first non-empty group SelectForScaleDown chooses from.
func scaleDownCandidates(machines []*clusterv1.Machine, outdated func(*clusterv1.Machine) bool) []*clusterv1.Machine {
	annotated := func(m *clusterv1.Machine) bool { _, ok := m.Annotations[clusterv1.DeleteMachineAnnotation]; return ok }
	for _, keep := range []func(*clusterv1.Machine) bool{
		func(m *clusterv1.Machine) bool { return annotated(m) && outdated(m) },
		annotated,
		outdated,
		func(*clusterv1.Machine) bool { return true },
	} {
		var candidates []*clusterv1.Machine
		for _, m := range machines {
			if keep(m) {
				candidates = append(candidates, m)
			}
		}
		if len(candidates) > 0 {
			return candidates
		}
	}
	return nil
}

// fullestDomain is the failure domain with the most Machines that holds a candidate, by name on
// a tie.
func fullestDomain(machines, candidates []*clusterv1.Machine) string {
	count := map[string]int{}
	for _, m := range machines {
		count[m.Spec.FailureDomain]++
	}
	var withCandidates []string
	for _, m := range candidates {
		if !slices.Contains(withCandidates, m.Spec.FailureDomain) {
			withCandidates = append(withCandidates, m.Spec.FailureDomain)
		}
	}
	sort.Slice(withCandidates, func(i, j int) bool {
		a, b := withCandidates[i], withCandidates[j]
		if count[a] != count[b] {
			return count[a] > count[b]
		}
		return a < b
	})
	return withCandidates[0]
}

// Oldest is the Machine created first, by name on a tie.
func Oldest(machines []*clusterv1.Machine) *clusterv1.Machine {
	return slices.MinFunc(machines, func(a, b *clusterv1.Machine) int {
		if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}
