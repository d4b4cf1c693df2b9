package events

import (
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	toolsevents "k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/utils/clock"
	"k8s.io/utils/lru"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// Event types, as the events.k8s.io API spells them.
const (
	Normal  = "Normal"
	Warning = "Warning"
)

// The limits of the core/v1 recorder's spam filter (client-go tools/record), which upstream
// Cluster API's Events went through.
const (
	burst     = 25
	qps       = 1. / 300.
	maxTraced = 4096
)

// Recorder records Events: Eventf(regarding, related, type, reason, action, note, args...).
// The events.k8s.io API requires an action (what was done, such as "Create") beside the
// reason (why, such as "SuccessfulCreate").
type Recorder = toolsevents.EventRecorder

// Provider is what a manager offers: controller-runtime's events.k8s.io recorders.
type Provider interface {
	GetEventRecorder(name string) recorder.EventRecorder
}

// New returns the rate-limited Recorder reporting as controller (the Events'
// reportingController, such as "machineset-controller").
func New(p Provider, controller string) Recorder {
	return newLimited(p.GetEventRecorder(controller), clock.RealClock{})
}

// limited drops an object's Events beyond its token bucket, strips resourceVersions and cuts
// notes to the API's limit.
type limited struct {
	inner Recorder
	clock clock.PassiveClock

	mu      sync.Mutex
	buckets *lru.Cache // object key -> flowcontrol.PassiveRateLimiter
}

func newLimited(inner Recorder, c clock.PassiveClock) *limited {
	return &limited{inner: inner, clock: c, buckets: lru.New(maxTraced)}
}

func (l *limited) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	if !l.allow(regarding) {
		return
	}
	l.inner.Eventf(withoutResourceVersion(regarding), withoutResourceVersion(related), eventtype, reason, action,
		"%s", shortNote(fmt.Sprintf(note, args...)))
}

// maxNote is the events.k8s.io API's limit on an Event's note, in bytes: the API server refuses
// a longer one, and the Event is lost.
const maxNote = 1024

// shortNote fits a note within maxNote: its beginning (what failed, what to do) and its end
// (for a command's output, the lines nearest the failure). The object's condition keeps it all.
func shortNote(msg string) string {
	if len(msg) <= maxNote {
		return msg
	}
	const cut = "\n[...]\n"
	head := 400
	tail := maxNote - head - len(cut)
	return strings.ToValidUTF8(msg[:head], "") + cut + strings.ToValidUTF8(msg[len(msg)-tail:], "")
}

// allow takes a token from the object's bucket.
func (l *limited) allow(obj runtime.Object) bool {
	key := objectKey(obj)
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets.Get(key)
	if !ok {
		b = flowcontrol.NewTokenBucketPassiveRateLimiterWithClock(qps, burst, l.clock)
		l.buckets.Add(key, b)
	}
	return b.(flowcontrol.PassiveRateLimiter).TryAccept()
}

// objectKey names an object by its UID, or, for an object
// not yet stored, its type, namespace and name.
func objectKey(obj runtime.Object) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	if uid := m.GetUID(); uid != "" {
		return string(uid)
	}
	return obj.GetObjectKind().GroupVersionKind().String() + "/" + m.GetNamespace() + "/" + m.GetName()
}

// withoutResourceVersion is obj, copied without its resourceVersion when it has one, so that
// Events about one object share one reference and aggregate into a series.
func withoutResourceVersion(obj runtime.Object) runtime.Object {
	if obj == nil {
		return nil
	}
	m, err := meta.Accessor(obj)
	if err != nil || m.GetResourceVersion() == "" {
		return obj
	}
	cp := obj.DeepCopyObject()
	if cm, err := meta.Accessor(cp); err == nil {
		cm.SetResourceVersion("")
	}
	return cp
}
