// Command mgmt runs Capstan's embedded management plane (etcd + kube-apiserver on
// 127.0.0.1, built from source by `make k8s-binaries`):
//
//	mgmt up      start it (idempotent), install CRDs and admission policies, write <dir>/kubeconfig
//	mgmt down    stop it; the data stays, so `up` again keeps every object
//	mgmt status  print which components run
//	mgmt serve   up, then stay in the foreground until SIGTERM/Ctrl-C, then down (Tilt's serve_cmd)
//	mgmt ready   exit 0 when the kube-apiserver answers /readyz (a readiness probe)
//
// Any other cluster can serve as management cluster through KUBECONFIG instead.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"capstan.dev/contracts/admissionpolicy"
	"capstan.dev/hack/tools/internal/components"
	"capstan.dev/hack/tools/internal/mgmt"
)

func main() {
	fs := flag.NewFlagSet("mgmt", flag.ExitOnError)
	dir := fs.String("dir", ".capstan/mgmt", "Directory holding the plane's data, certificates, logs and kubeconfig.")
	repo := fs.String("repo", ".", "Repository root; CRDs are read from <repo>/*/config/crd/bases.")
	namespaces := fs.String("namespaces", "capstan-system,capstan-kubeadm-bootstrap-system,capstan-docker-system",
		"Comma-separated namespaces to create (the providers' leader-election namespaces).")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: mgmt [flags] up|down|status|serve|ready\n")
		fs.PrintDefaults()
	}
	_ = fs.Parse(os.Args[1:])
	log.SetLogger(logr.Discard()) // the CRD installer's logs add nothing to our progress lines
	if fs.NArg() != 1 {
		fs.Usage()
		os.Exit(2)
	}
	crdDirs, _ := filepath.Glob(filepath.Join(*repo, "*", "config", "crd", "bases"))
	p := &mgmt.Plane{Dir: *dir, CRDDirs: crdDirs, Namespaces: splitList(*namespaces), Log: os.Stdout}
	if fs.Arg(0) == "up" || fs.Arg(0) == "serve" {
		policies, err := providerPolicies(*repo)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mgmt:", err)
			os.Exit(1)
		}
		p.Policies = policies
	}

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	var err error
	switch fs.Arg(0) {
	case "up":
		err = p.Up(ctx)
	case "down":
		err = p.Down()
	case "serve":
		err = p.Serve(ctx, 2*time.Second)
	case "ready":
		readyCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = p.Ready(readyCtx)
		cancel()
	case "status":
		running := p.Running()
		names := make([]string, 0, len(running))
		for n := range running {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Printf("%s running (pid %d)\n", n, running[n])
		}
		if len(running) == 0 {
			fmt.Println("management plane not running (start it with 'make mgmt-up')")
		}
	default:
		err = fmt.Errorf("unknown command %q: use up, down, status, serve or ready", fs.Arg(0))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mgmt:", err)
		os.Exit(1)
	}
}

// providerPolicies are the admission policies of every provider's config/default, as
// `capstanctl init` installs them (same names, so init finds them in place).
func providerPolicies(repo string) (admissionpolicy.Set, error) {
	var set admissionpolicy.Set
	for _, provider := range components.Providers {
		data, err := components.Build(repo, provider)
		if err != nil {
			return set, err
		}
		var objs []*unstructured.Unstructured
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return set, fmt.Errorf("decoding %s's components: %w", provider, err)
			}
			objs = append(objs, u)
		}
		s, err := admissionpolicy.FromUnstructured(objs)
		if err != nil {
			return set, fmt.Errorf("%s: %w", provider, err)
		}
		set = set.Merge(s)
	}
	return set, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
