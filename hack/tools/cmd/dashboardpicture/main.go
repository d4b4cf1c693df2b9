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

// Command dashboardpicture draws docs/images/fleet-dashboard.png: config/metrics/dashboard.json
// over a synthetic fleet (package dashboardpicture). make dashboard-picture runs it from the
// repository root with the kube-state-metrics binary hack/kube-state-metrics/build.sh built.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"capstan.dev/hack/tools/internal/dashboardpicture"
)

func main() {
	o := dashboardpicture.Options{}
	flag.StringVar(&o.Root, "root", ".", "repository root")
	flag.StringVar(&o.Out, "out", "docs/images/fleet-dashboard.png", "the PNG to write")
	flag.StringVar(&o.KubeStateMetrics, "kube-state-metrics", os.Getenv("CAPSTAN_KUBE_STATE_METRICS"), "the kube-state-metrics binary")
	flag.StringVar(&o.Prometheus, "prometheus", "", "the prometheus binary (default: prometheus on PATH)")
	flag.DurationVar(&o.Hold, "hold", 20*time.Second, "how long Prometheus scrapes each state of the fleet")
	flag.Float64Var(&o.Width, "width", 1600, "picture width in pixels")
	flag.Parse()
	// An interrupt cancels the run, whose deferred stops end every process it started.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := dashboardpicture.Run(ctx, o)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dashboard-picture:", err)
		os.Exit(1)
	}
}
