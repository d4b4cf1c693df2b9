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

// Package dashboardpicture owns make dashboard-picture: it starts an API server (the envtest
// harness's kube-apiserver and etcd) holding a synthetic fleet, kube-state-metrics with
// config/metrics/crd-metrics-config.yaml on it, and a real Prometheus scraping that, changes the
// fleet for a minute so the time series have a history, and draws config/metrics/dashboard.json
// from Prometheus with package dashrender into docs/images/fleet-dashboard.png. Every process it
// starts it stops, also when it fails. It must not be part of make test: it needs prometheus
// and rsvg-convert, which CI does not install.
package dashboardpicture

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"capstan.dev/contracts/envtest"
	"capstan.dev/hack/tools/internal/dashrender"
)

// Options say where things are.
type Options struct {
	Root             string        // repository root
	Out              string        // the PNG to write
	KubeStateMetrics string        // the kube-state-metrics binary
	Prometheus       string        // the prometheus binary; found on PATH when empty
	Hold             time.Duration // how long each state of the fleet is scraped
	Width            float64       // picture width in pixels
}

// Run makes the picture.
func Run(ctx context.Context, o Options) error {
	prometheus, err := findPrometheus(o.Prometheus)
	if err != nil {
		return err
	}
	rsvg, err := exec.LookPath("rsvg-convert")
	if err != nil {
		return fmt.Errorf("no rsvg-convert on PATH, which turns the SVG into the PNG: install it (Debian: apt-get install -y librsvg2-bin)")
	}
	if o.KubeStateMetrics == "" {
		return fmt.Errorf("no kube-state-metrics binary: make dashboard-picture builds it (hack/kube-state-metrics/build.sh)")
	}
	tmp, err := os.MkdirTemp("", "dashboard-picture-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	env, err := envtest.Start(envtest.Options{CRDDirectoryPaths: []string{
		filepath.Join(o.Root, "bootstrap-kubeadm/config/crd/bases"),
		filepath.Join(o.Root, "infrastructure-docker/config/crd/bases"),
	}})
	if err != nil {
		return err
	}
	defer func() { _ = env.Stop() }()
	started := time.Now()
	if err := createFleet(ctx, env.Client, timestamp(started)); err != nil {
		return err
	}
	fmt.Println("dashboard-picture: the fleet is on the API server; starting kube-state-metrics and prometheus")

	prom, stop, err := startScraping(ctx, o, tmp, prometheus, env.KubeConfig)
	defer stop()
	if err != nil {
		return err
	}
	from, err := evolveFleet(ctx, o, env, prom, started)
	if err != nil {
		return err
	}
	return draw(ctx, o, tmp, rsvg, prom, from)
}

// startScraping runs kube-state-metrics on the API server and Prometheus scraping it every
// second; stop ends both (also after an error).
func startScraping(ctx context.Context, o Options, tmp, prometheus string, kubeconfig []byte) (*dashrender.Prometheus, func(), error) {
	var procs []*process
	stop := func() {
		for i := len(procs) - 1; i >= 0; i-- {
			procs[i].stop()
		}
	}
	ksmPort, err1 := freePort()
	telemetryPort, err2 := freePort()
	promPort, err3 := freePort()
	if err := firstError(err1, err2, err3); err != nil {
		return nil, stop, err
	}
	kubeconfigPath := filepath.Join(tmp, "kubeconfig")
	promConfig := filepath.Join(tmp, "prometheus.yml")
	if err := firstError(os.WriteFile(kubeconfigPath, kubeconfig, 0o600), os.WriteFile(promConfig, []byte(fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
- job_name: kube-state-metrics
  static_configs: [{targets: ["127.0.0.1:%s"]}]
`, ksmPort)), 0o600)); err != nil {
		return nil, stop, err
	}
	ksm, err := start("kube-state-metrics", filepath.Join(tmp, "kube-state-metrics.log"), o.KubeStateMetrics,
		"--custom-resource-state-only", "--custom-resource-state-config-file="+filepath.Join(o.Root, "config/metrics/crd-metrics-config.yaml"),
		"--kubeconfig="+kubeconfigPath, "--host=127.0.0.1", "--port="+ksmPort, "--telemetry-host=127.0.0.1", "--telemetry-port="+telemetryPort)
	if err != nil {
		return nil, stop, err
	}
	procs = append(procs, ksm)
	if err := ksm.waitHTTP(ctx, "http://127.0.0.1:"+ksmPort+"/metrics", time.Minute); err != nil {
		return nil, stop, err
	}
	p, err := start("prometheus", filepath.Join(tmp, "prometheus.log"), prometheus, "--config.file="+promConfig,
		"--storage.tsdb.path="+filepath.Join(tmp, "tsdb"), "--web.listen-address=127.0.0.1:"+promPort)
	if err != nil {
		return nil, stop, err
	}
	procs = append(procs, p)
	if err := p.waitHTTP(ctx, "http://127.0.0.1:"+promPort+"/-/ready", time.Minute); err != nil {
		return nil, stop, err
	}
	return &dashrender.Prometheus{URL: "http://127.0.0.1:" + promPort}, stop, nil
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// evolveFleet waits until Prometheus holds the whole fleet, then applies steps.yaml one step at
// a time, each held o.Hold in Prometheus' samples. It returns when the fleet was first seen.
func evolveFleet(ctx context.Context, o Options, env *envtest.Environment, prom *dashrender.Prometheus, started time.Time) (time.Time, error) {
	if err := waitForSeries(ctx, prom, fmt.Sprintf("count(capi_machine_info) == %d", len(machines))); err != nil {
		return time.Time{}, err
	}
	from := time.Now()
	steps, err := loadSteps(timestamp(started))
	if err != nil {
		return from, err
	}
	apiVersions := map[string]string{}
	objs, err := fleetObjects("")
	if err != nil {
		return from, err
	}
	for _, obj := range objs {
		apiVersions[obj.GetKind()] = obj.GetAPIVersion()
	}
	for _, s := range steps {
		if err := holdFor(ctx, prom, o.Hold); err != nil {
			return from, err
		}
		fmt.Println("dashboard-picture: step:", s.Name)
		if err := applyStep(ctx, env.Client, s, apiVersions); err != nil {
			return from, err
		}
		if err := waitForSeries(ctx, prom, s.VisibleWhen); err != nil {
			return from, err
		}
	}
	return from, holdFor(ctx, prom, o.Hold)
}

// waitForSeries waits until expr returns a series in Prometheus.
func waitForSeries(ctx context.Context, prom *dashrender.Prometheus, expr string) error {
	return waitFor(ctx, 2*time.Minute, "Prometheus to answer "+expr, func() (bool, error) {
		s, err := prom.Instant(ctx, expr, time.Now())
		return err == nil && len(s) > 0, nil
	})
}

// holdFor waits until Prometheus has scraped kube-state-metrics for d more: its newest sample
// is d newer than now.
func holdFor(ctx context.Context, prom *dashrender.Prometheus, d time.Duration) error {
	until := time.Now().Add(d)
	return waitFor(ctx, d+time.Minute, "Prometheus to scrape kube-state-metrics for "+d.String(), func() (bool, error) {
		s, err := prom.Instant(ctx, `timestamp(up{job="kube-state-metrics"} == 1)`, time.Now())
		return err == nil && len(s) == 1 && !time.Unix(int64(s[0].Last()), 0).Before(until), nil
	})
}

// draw checks that every panel's query answers, then renders the dashboard and converts it.
func draw(ctx context.Context, o Options, tmp, rsvg string, prom *dashrender.Prometheus, from time.Time) error {
	dash, err := dashrender.Load(filepath.Join(o.Root, "config/metrics/dashboard.json"))
	if err != nil {
		return err
	}
	r := &dashrender.Renderer{Prom: prom, Start: from.Add(-5 * time.Second), End: time.Now(), Width: o.Width,
		Subtitle: "config/metrics/dashboard.json evaluated by Prometheus over kube-state-metrics reading a synthetic fleet " +
			"on a real API server (make dashboard-picture; drawn by Capstan's renderer, not Grafana)"}
	svg, empty, err := r.Render(ctx, dash)
	if err != nil {
		return err
	}
	svgPath := filepath.Join(tmp, "dashboard.svg")
	if err := os.WriteFile(svgPath, svg, 0o644); err != nil {
		return err
	}
	if out, err := exec.CommandContext(ctx, rsvg, "--format=png", "--output="+o.Out, svgPath).CombinedOutput(); err != nil {
		return fmt.Errorf("rsvg-convert: %v: %s", err, out)
	}
	fmt.Println("dashboard-picture: wrote", o.Out)
	if len(empty) > 0 {
		return fmt.Errorf("panels without data (a query that matches nothing, or a state the fleet lacks): %s", strings.Join(empty, ", "))
	}
	return nil
}
