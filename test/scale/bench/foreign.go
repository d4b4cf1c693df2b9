package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// foreignNamespace holds the Secrets and ConfigMaps of scenario 6.
const foreignNamespace = "bench-foreign"

// foreign is scenario 6: the resident memory of a fresh core manager idle, then
// with Secrets (half of them labelled with a cluster name, as a cache filtered by
// that label would keep them) and ConfigMaps it has no use for. Goal: ≤ 1.1× idle,
// i.e. the manager caches none of them.
func (r *run) foreign(ctx context.Context) error {
	// A fresh process, so the idle figure is not the peak of an earlier scenario.
	if err := r.restartCore(); err != nil {
		return err
	}
	if err := sleep(ctx, r.cfg.MemorySettle); err != nil {
		return err
	}
	idle, err := r.core.usage()
	if err != nil {
		return err
	}
	r.saveHeap(ctx, "foreign-idle") // the base to diff the next heap profile against
	if err := r.createNamespace(ctx, foreignNamespace); err != nil {
		return err
	}
	r.logf("Foreign objects: creating %d Secrets and %d ConfigMaps of %d bytes", r.cfg.ForeignSecrets, r.cfg.ForeignConfigMaps, r.cfg.ConfigMapBytes)
	if err := r.createForeign(ctx); err != nil {
		return err
	}
	if err := sleep(ctx, r.cfg.MemorySettle); err != nil {
		return err
	}
	with, err := r.core.usage()
	if err != nil {
		return err
	}
	r.saveHeap(ctx, "foreign")
	const scenario = "6 Memory vs. foreign objects"
	r.report.add(Figure{Scenario: scenario, Name: "core manager RSS idle", Value: mib(idle.RSSBytes), Unit: "MiB"})
	r.report.add(Figure{Scenario: scenario,
		Name:  fmt.Sprintf("core manager RSS with %d Secrets + %d ConfigMaps", r.cfg.ForeignSecrets, r.cfg.ForeignConfigMaps),
		Value: mib(with.RSSBytes), Unit: "MiB"})
	ratio := float64(with.RSSBytes) / float64(max(idle.RSSBytes, 1))
	r.report.add(Figure{Scenario: scenario, Name: "RSS with them ÷ RSS idle", Value: ratio, Unit: "×",
		Goal: "≤ 1.1×", Met: ptr.To(ratio <= 1.1)})
	return nil
}

// createForeign creates the Secrets and ConfigMaps with 32 workers.
func (r *run) createForeign(ctx context.Context) error {
	data := strings.Repeat("x", r.cfg.ConfigMapBytes)
	secrets, configMaps := r.cfg.ForeignSecrets, r.cfg.ForeignConfigMaps
	start := time.Now()
	_, err := forEach(ctx, secrets+configMaps, 32, func(ctx context.Context, i int) error {
		meta := metav1.ObjectMeta{Namespace: foreignNamespace}
		if i < secrets {
			meta.Name = fmt.Sprintf("foreign-%05d", i)
			if i%2 == 0 {
				meta.Labels = map[string]string{clusterv1.ClusterNameLabel: "foreign"}
			}
			return r.plane.harness.Create(ctx, &corev1.Secret{ObjectMeta: meta,
				Data: map[string][]byte{"token": []byte(meta.Name)}})
		}
		meta.Name = fmt.Sprintf("foreign-%05d", i-secrets)
		return r.plane.harness.Create(ctx, &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"data": data}})
	})
	r.logf("  created in %s", time.Since(start).Round(time.Millisecond))
	return err
}
