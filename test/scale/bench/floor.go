package bench

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/testing/crds"
)

// floor measures scenario 1: how many writes per second this API server and etcd
// take on this machine, in the same run, at each concurrency level — a create and
// a status patch of a custom resource per object, nothing watching them. Every
// duration the other scenarios report is compared with what this rate predicts.
func (r *run) floor(ctx context.Context) error {
	const ns = "bench-floor"
	if err := r.createNamespace(ctx, ns); err != nil {
		return err
	}
	for _, c := range r.cfg.FloorConcurrency {
		r.logf("Floor: %d objects created and status-patched by %d workers", r.cfg.FloorObjects, c)
		rate, err := r.floorAt(ctx, ns, c)
		if err != nil {
			return fmt.Errorf("floor at concurrency %d: %w", c, err)
		}
		r.floorRates[c] = rate
		r.report.add(Figure{Scenario: r.cfg.title(ScenarioFloor), Name: fmt.Sprintf("create + status patch of a CR, %d concurrent", c),
			Value: rate, Unit: "writes/s"})
	}
	rate, level := r.floorRate()
	r.report.add(Figure{Scenario: r.cfg.title(ScenarioFloor), Name: fmt.Sprintf("rate the ratios use (%d concurrent, the core has %d workers per controller)",
		level, r.cfg.CoreConcurrency), Value: rate, Unit: "writes/s"})
	// Out of the way of the next scenarios (not timed).
	return r.plane.harness.DeleteAllOf(ctx, newGeneric(crds.GenericInfrastructureMachineGVK), client.InNamespace(ns))
}

func (r *run) floorAt(ctx context.Context, ns string, concurrency int) (float64, error) {
	status := client.RawPatch(types.MergePatchType, []byte(`{"status":{"initialization":{"provisioned":true}}}`))
	n := r.cfg.FloorObjects
	took, err := forEach(ctx, n, concurrency, func(ctx context.Context, i int) error {
		obj := newGeneric(crds.GenericInfrastructureMachineGVK)
		obj.SetNamespace(ns)
		obj.SetName(fmt.Sprintf("floor-%d-%d", concurrency, i))
		obj.Object["spec"] = map[string]any{"providerID": fmt.Sprintf("floor:///%d/%d", concurrency, i)}
		if err := r.plane.harness.Create(ctx, obj); err != nil {
			return err
		}
		return r.plane.harness.Status().Patch(ctx, obj, status)
	})
	if err != nil {
		return 0, err
	}
	return float64(2*n) / took.Seconds(), nil
}

// floorRate is the floor measured at the highest level not above the core's
// concurrency (the lowest level when all are above it), with that level.
func (r *run) floorRate() (float64, int) {
	levels := make([]int, 0, len(r.floorRates))
	for c := range r.floorRates {
		levels = append(levels, c)
	}
	if len(levels) == 0 {
		return 0, 0
	}
	sort.Ints(levels)
	best := levels[0]
	for _, c := range levels {
		if c <= r.cfg.CoreConcurrency {
			best = c
		}
	}
	return r.floorRates[best], best
}

// ratioToFloor is how much longer than the floor predicts for writes took; nil
// without a floor.
func (r *run) ratioToFloor(took time.Duration, writes int) *float64 {
	rate, _ := r.floorRate()
	if rate == 0 || writes == 0 {
		return nil
	}
	ratio := took.Seconds() / (float64(writes) / rate)
	return &ratio
}

// forEach calls do for 0..n-1 with concurrency workers and returns how long that
// took and the first error; the workers stop taking work after an error.
func forEach(ctx context.Context, n, concurrency int, do func(context.Context, int) error) (time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next atomic.Int64
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	start := time.Now()
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				if err := do(ctx, i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					cancel()
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), errors.Join(errs...)
}

func newGeneric(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}
