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

package kubeadmcontrolplane

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"capstan.dev/contracts/etcd"
	"capstan.dev/contracts/kcprollout"
)

// checkMembersHealth judges every member the way upstream's EtcdMemberHealthy does, each through
// a connection to that member alone (a port-forward to etcd-<node>): a member is healthy when it
// answers Status as itself without errors, sees the same member list as the member the list was
// read through, and has no alarm raised. A listed member is not enough: a crash-looping etcd stays
// listed. A member no Machine's Node is named after cannot be reached and counts as unhealthy. It
// returns, by member name, why each unhealthy member is not healthy (healthy ones are absent).
func (r *Reconciler) checkMembersHealth(ctx context.Context, s *scope, c etcd.Client, members []etcd.Member) map[string]string {
	unhealthy := map[string]string{}
	alarms, err := c.Alarms(ctx)
	if err != nil {
		for _, mem := range members {
			unhealthy[memberKey(mem)] = "the etcd alarms could not be read: " + err.Error()
		}
		return unhealthy
	}
	nodes := map[string]bool{}
	for _, m := range s.machines {
		if hasNode(m) {
			nodes[m.Status.NodeRef.Name] = true
		}
	}
	for _, mem := range members {
		switch {
		case mem.Name == "":
			unhealthy[memberKey(mem)] = "it has not started yet (a join in progress)"
		case !nodes[mem.Name]:
			unhealthy[memberKey(mem)] = "no control plane Machine has a Node of that name, so it cannot be reached"
		default:
			if why := r.memberHealth(ctx, s, mem, members, alarms); why != "" {
				unhealthy[memberKey(mem)] = why
			}
		}
	}
	return unhealthy
}

// memberHealth asks member mem itself, through its own etcd Pod, and says why it is not healthy;
// empty when it is.
func (r *Reconciler) memberHealth(ctx context.Context, s *scope, mem etcd.Member, members []etcd.Member, alarms []etcd.Alarm) string {
	pod := klog.KRef(metav1.NamespaceSystem, etcd.PodName(mem.Name)).String()
	c := s.etcdConn
	if s.etcdConn == nil || s.etcdVia != mem.Name {
		own, err := r.EtcdClientFor(ctx, s.cluster, mem.Name)
		if err != nil {
			return fmt.Sprintf("it cannot be reached through Pod %s: %v", pod, err)
		}
		defer own.Close()
		c = own
	}
	st, err := c.Status(ctx)
	switch {
	case err != nil:
		return fmt.Sprintf("it does not answer through Pod %s: %v", pod, err)
	case st.ID != mem.ID:
		return fmt.Sprintf("Pod %s answers as member %x, not as %x", pod, st.ID, mem.ID)
	case len(st.Errors) > 0:
		return "it reports errors: " + strings.Join(st.Errors, "; ")
	}
	var raised []string
	for _, a := range alarms {
		if a.MemberID == mem.ID {
			raised = append(raised, a.Type)
		}
	}
	if len(raised) > 0 {
		slices.Sort(raised)
		return fmt.Sprintf("alarm %s is raised on it: see the etcd maintenance guide (NOSPACE: compact and defragment, then disarm)", strings.Join(raised, ", "))
	}
	seen, err := c.Members(ctx)
	if err != nil {
		return fmt.Sprintf("it cannot list the members: %v", err)
	}
	if !sameMemberIDs(seen, members) {
		return fmt.Sprintf("it sees the members %s, not %s (split cluster)", membersMessage(seen), membersMessage(members))
	}
	return ""
}

func sameMemberIDs(a, b []etcd.Member) bool {
	ids := func(ms []etcd.Member) []uint64 {
		out := make([]uint64, 0, len(ms))
		for _, m := range ms {
			out = append(out, m.ID)
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(ids(a), ids(b))
}

// memberKey names a member in the health map: its name, or its hexadecimal ID before it started.
func memberKey(m etcd.Member) string { return orDefault(m.Name, fmt.Sprintf("%x", m.ID)) }

// etcdRemovalBlocked says why removing member removed (what) must not happen now: the
// members left must hold a quorum of their own number among those healthy (healthy says which,
// on top of the members' own health). Empty when the removal keeps quorum. Removing the last
// member is never allowed. A removed member that is not listed (ID 0) changes nothing: every
// listed member is counted.
func etcdRemovalBlocked(e *etcdResult, removed etcd.Member, what string, healthy func(etcd.Member) bool) string {
	left, healthyLeft := 0, 0
	var unhealthy []string
	for _, mem := range e.members {
		if mem.ID == removed.ID {
			continue
		}
		left++
		why, sick := e.unhealthy[memberKey(mem)]
		switch {
		case !sick && (healthy == nil || healthy(mem)):
			healthyLeft++
		case sick:
			unhealthy = append(unhealthy, fmt.Sprintf("%s: %s", memberKey(mem), why))
		default:
			unhealthy = append(unhealthy, memberKey(mem)+": its Machine is being deleted or remediated")
		}
	}
	if left > 0 && healthyLeft >= kcprollout.Quorum(left) {
		return ""
	}
	slices.Sort(unhealthy)
	return fmt.Sprintf("%s would leave %d etcd member(s), %d of them healthy (unhealthy: %s): below the quorum of %d; fix the unhealthy members first",
		what, left, healthyLeft, orDefault(strings.Join(unhealthy, "; "), "none"), kcprollout.Quorum(max(left, 1)))
}
