package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// foreignNamespace holds the Secrets and ConfigMaps of scenario 6.
const foreignNamespace = "bench-foreign"

// foreign is scenario 6: the resident memory of a fresh core manager, and of fresh
// bootstrap and docker managers, idle, then with Secrets (half of them labelled with a
// cluster name, as a cache filtered by that label would keep them) and ConfigMaps none
// of them has a use for. Goal: ≤ 1.1× idle, i.e. no manager caches them.
func (r *run) foreign(ctx context.Context) error {
	// Fresh processes, so the idle figure is not the peak of an earlier scenario.
	if err := r.restartCore(); err != nil {
		return err
	}
	others, err := r.startOtherManagers()
	defer func() {
		for _, m := range others {
			_ = m.proc.stop()
		}
	}()
	if err != nil {
		return err
	}
	managers := append([]namedManager{{"core manager", r.core}}, others...)
	idle, err := r.settleRSS(ctx, managers, r.cfg.MemorySettle)
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
	with, err := r.settleRSS(ctx, managers, r.cfg.MemorySettle)
	if err != nil {
		return err
	}
	r.saveHeap(ctx, "foreign")
	scenario := r.cfg.title(ScenarioForeign)
	for i, m := range managers {
		r.report.add(Figure{Scenario: scenario, Name: m.name + " RSS idle", Value: mib(idle[i].RSSBytes), Unit: "MiB"})
		r.report.add(Figure{Scenario: scenario,
			Name:  fmt.Sprintf("%s RSS with %d Secrets + %d ConfigMaps", m.name, r.cfg.ForeignSecrets, r.cfg.ForeignConfigMaps),
			Value: mib(with[i].RSSBytes), Unit: "MiB"})
		ratio := float64(with[i].RSSBytes) / float64(max(idle[i].RSSBytes, 1))
		name := "RSS with them ÷ RSS idle"
		if i > 0 {
			name = m.name + " " + name
		}
		r.report.add(Figure{Scenario: scenario, Name: name, Value: ratio, Unit: "×", Goal: "≤ 1.1×", Met: ptr.To(ratio <= 1.1)})
	}
	r.report.addOutcome(Outcome{Scenario: ScenarioForeign, Title: scenario, Extra: []Figure{
		{Name: "core RSS idle", Value: mib(idle[0].RSSBytes), Unit: "MiB"},
		{Name: fmt.Sprintf("core RSS with %d Secrets + %d ConfigMaps", r.cfg.ForeignSecrets, r.cfg.ForeignConfigMaps),
			Value: mib(with[0].RSSBytes), Unit: "MiB"},
	}})
	return nil
}

// namedManager is a running manager with the name the report gives it.
type namedManager struct {
	name string
	*coreManager
}

// startOtherManagers builds and starts Capstan's bootstrap and docker managers as
// users of their own. The docker manager gets a Docker host that does not exist: it
// must never reach a real engine, and scenario 6 creates no DockerMachine.
func (r *run) startOtherManagers() ([]namedManager, error) {
	var out []namedManager
	for _, m := range []struct{ name, pkg, user string }{
		{"bootstrap-kubeadm manager", "capstan.dev/bootstrap-kubeadm", UserBootstrap},
		{"infrastructure-docker manager", "capstan.dev/infrastructure-docker", UserDocker},
	} {
		bin, err := buildManager(r.cfg.WorkDir, m.pkg, filepath.Base(m.pkg))
		if err != nil {
			return out, err
		}
		var extra, env []string
		if m.user == UserDocker {
			extra = []string{"--docker-network=capstan-bench"}
			env = []string{"DOCKER_HOST=unix://" + filepath.Join(r.cfg.WorkDir, "no-docker.sock")}
		}
		r.logf("Starting the %s", m.name)
		c, err := startManager(filepath.Base(m.pkg), bin, r.plane.kubeconfigs[m.user], r.cfg.WorkDir, false, extra, env)
		if err != nil {
			return out, err
		}
		out = append(out, namedManager{m.name, c})
	}
	return out, nil
}

func usages(managers []namedManager) ([]usage, error) {
	out := make([]usage, len(managers))
	for i, m := range managers {
		u, err := m.usage()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.name, err)
		}
		out[i] = u
	}
	return out, nil
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
