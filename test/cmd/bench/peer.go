package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"capstan.dev/test/scale/bench"
)

// peerFlags are the flags of a side-by-side run: the peer core to set against Capstan's
// and where the comparison goes.
type peerFlags struct {
	preset, manager, crds, name, args, doc string
	webhook                                bool
}

func (p *peerFlags) register() {
	flag.StringVar(&p.preset, "peer", "", `Run side by side with this peer: "upstream" builds upstream Cluster API's core with hack/upstream/build.sh and uses its CRDs from the module cache.`)
	flag.StringVar(&p.manager, "peer-manager", "", "Run side by side with this core manager binary (with --peer-crds).")
	flag.StringVar(&p.crds, "peer-crds", "", "Directory of the peer's core CRDs.")
	flag.StringVar(&p.name, "peer-name", "peer", "The peer's name in the report.")
	flag.StringVar(&p.args, "peer-manager-args", "", "Extra flags of the peer's manager, space separated.")
	flag.BoolVar(&p.webhook, "peer-webhook", true, "Give the peer --webhook-cert-dir (a self-signed certificate) and --webhook-port, as upstream's manager needs.")
	flag.StringVar(&p.doc, "side-by-side", "", "Write the side-by-side run into this Markdown file's section \""+bench.SideBySideHeading+"\", replacing the previous run.")
}

func (p *peerFlags) wanted() bool { return p.preset != "" || p.manager != "" }

// resolve is the peer to run: the preset's, or the one the flags name.
func (p *peerFlags) resolve() (bench.Peer, error) {
	peer := bench.Peer{Name: p.name, Manager: p.manager, CRDs: p.crds, Args: strings.Fields(p.args), WebhookServer: p.webhook}
	switch p.preset {
	case "":
	case "upstream":
		version, core, crds, err := buildUpstream()
		if err != nil {
			return peer, err
		}
		peer.Name, peer.Manager, peer.CRDs = "upstream "+version, core, crds
	default:
		return peer, fmt.Errorf("--peer: unknown peer %q (known: upstream)", p.preset)
	}
	if peer.Manager == "" || peer.CRDs == "" {
		return peer, fmt.Errorf("a side-by-side run needs the peer's manager and its CRDs (--peer-manager and --peer-crds)")
	}
	return peer, nil
}

// buildUpstream runs hack/upstream/build.sh (which builds upstream's managers once into
// the cache) and returns the version, the core's binary and its CRDs in the module cache.
func buildUpstream() (version, core, crds string, err error) {
	cmd := exec.Command("bash", filepath.Join("hack", "upstream", "build.sh"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", "", "", fmt.Errorf("hack/upstream/build.sh: %w", err)
	}
	vars := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			vars[k] = v
		}
	}
	version, core = vars["CAPSTAN_UPSTREAM_VERSION"], vars["CAPSTAN_UPSTREAM_CORE"]
	if version == "" || core == "" {
		return "", "", "", fmt.Errorf("hack/upstream/build.sh printed no CAPSTAN_UPSTREAM_VERSION or CAPSTAN_UPSTREAM_CORE: %s", out)
	}
	modCache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return "", "", "", fmt.Errorf("go env GOMODCACHE: %w", err)
	}
	crds = filepath.Join(strings.TrimSpace(string(modCache)), "sigs.k8s.io", "cluster-api@"+version, "config", "crd", "bases")
	if _, err := os.Stat(crds); err != nil {
		return "", "", "", fmt.Errorf("upstream's CRDs: %w", err)
	}
	return version, core, crds, nil
}

// runSideBySide runs Capstan's core and the peer's back to back, prints the comparison
// and writes it into --side-by-side. A scenario the peer does not finish is in the
// table, not a failure; one of Capstan's is; a run that could not start a core is not
// written.
func runSideBySide(ctx context.Context, cfg bench.Config, flags peerFlags, output string) (int, error) {
	peer, err := flags.resolve()
	if err != nil {
		return 2, err
	}
	started := time.Now()
	cmp, err := bench.RunSideBySide(ctx, cfg, peer)
	if cmp == nil {
		return 1, err
	}
	fmt.Fprintf(os.Stderr, "Finished in %s\n", time.Since(started).Round(time.Second))
	if output == "json" {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(cmp)
	} else {
		_ = cmp.WriteTable(os.Stdout)
	}
	for _, failure := range cmp.Capstan.Failures {
		fmt.Fprintf(os.Stderr, "FAILED (Capstan) %s\n", failure)
	}
	for _, failure := range cmp.Peer.Failures {
		fmt.Fprintf(os.Stderr, "Not finished (%s) %s\n", peer.Name, failure)
	}
	if ctx.Err() != nil {
		return 1, fmt.Errorf("interrupted: the run is not written to %s", flags.doc)
	}
	if err != nil {
		return 1, fmt.Errorf("%w (the run is not written to %s)", err, flags.doc)
	}
	if flags.doc != "" {
		if werr := cmp.ReplaceMarkdownSection(flags.doc); werr != nil {
			return 1, fmt.Errorf("writing to %s: %w", flags.doc, werr)
		}
	}
	if len(cmp.Capstan.Failures) > 0 {
		return 1, nil
	}
	return 0, nil
}
