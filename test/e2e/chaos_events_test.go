//go:build e2e

package e2e

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// eventStormLimit is the most Event objects the managers may create for the chaos cluster's
// objects in any minute of a round: a steady cluster records none, a cluster being created,
// rolled out and killed a few dozen a minute; a controller looping on a failure after every
// restart (its per-object limit starts afresh in a new process) would pass it within the minute.
const eventStormLimit = 120

// checkNoEventStorm reads every events.k8s.io Event recorded in the suite's namespace since
// start (Events live an hour on the API server, longer than a round, so none is missed
// however the apiserver restarted meanwhile) and fails when any minute holds more than
// eventStormLimit of them. It logs the total, the busiest minute and the objects with the most.
func (s *suite) checkNoEventStorm(start time.Time) {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("events.k8s.io/v1")
	list.SetKind("EventList")
	s.eventually(time.Minute, "listing the Events", func() error { return s.mgmt.List(s.ctx, list, client.InNamespace(s.ns)) })
	var times []time.Time
	occurrences := 0
	perObject := map[string]int{}
	for i := range list.Items {
		e := list.Items[i].Object
		at := eventTime(e)
		if at.Before(start) {
			continue
		}
		times = append(times, at)
		count, found, _ := unstructured.NestedInt64(e, "series", "count")
		if !found {
			count = 1
		}
		occurrences += int(count)
		kind, _, _ := unstructured.NestedString(e, "regarding", "kind")
		name, _, _ := unstructured.NestedString(e, "regarding", "name")
		reason, _, _ := unstructured.NestedString(e, "reason")
		perObject[kind+"/"+name+" "+reason]++
	}
	peak, peakAt := busiestMinute(times)
	s.t.Logf("Events during the round: %d objects (%d occurrences with their series), busiest minute %d from %s; most by object and reason: %s",
		len(times), occurrences, peak, peakAt.UTC().Format(time.TimeOnly), topCounts(perObject, 5))
	require.LessOrEqual(s.t, peak, eventStormLimit, "an Event storm: %d Events created within a minute from %s", peak, peakAt.UTC().Format(time.TimeOnly))
}

// eventTime is when an Event was first recorded: eventTime, else its creation.
func eventTime(e map[string]any) time.Time {
	for _, path := range [][]string{{"eventTime"}, {"metadata", "creationTimestamp"}} {
		if v, _, _ := unstructured.NestedString(e, path...); v != "" {
			if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
				return t
			}
		}
	}
	return time.Time{}
}

// busiestMinute is the most times within any 60 s window, and where that window starts.
func busiestMinute(times []time.Time) (int, time.Time) {
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	best, at, lo := 0, time.Time{}, 0
	for hi, t := range times {
		for t.Sub(times[lo]) >= time.Minute {
			lo++
		}
		if n := hi - lo + 1; n > best {
			best, at = n, times[lo]
		}
	}
	return best, at
}

// topCounts lists the n largest counts as "key: count".
func topCounts(counts map[string]int, n int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var out []string
	for _, k := range keys[:min(n, len(keys))] {
		out = append(out, fmt.Sprintf("%s: %d", k, counts[k]))
	}
	return strings.Join(out, "; ")
}
