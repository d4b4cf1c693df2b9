package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/devcreds"
	"capstan.dev/core/internal/capstanctl/localmanagers"
)

// devManagers are the manager processes init --dev runs: one per provider, each with its
// Lease in its provider's namespace, its own kubeconfig and the --manager-args given for it.
func (o *initOptions) devManagers(ps []components.Provider) ([]localmanagers.Manager, error) {
	extra := map[string][]string{}
	for _, a := range o.args {
		name, flags, ok := strings.Cut(a, "=")
		if !ok || strings.TrimSpace(flags) == "" {
			return nil, fmt.Errorf("--manager-args %q: want PROVIDER=FLAGS, e.g. kubeadm=--bootstrap-token-ttl=1m", a)
		}
		sel, err := components.Select([]string{name})
		if err != nil {
			return nil, fmt.Errorf("--manager-args %q: %w", a, err)
		}
		extra[sel[0].Name] = append(extra[sel[0].Name], strings.Fields(flags)...)
	}
	var ms []localmanagers.Manager
	for _, p := range ps {
		ms = append(ms, localmanagers.Manager{
			Name:       p.Module,
			Binary:     filepath.Join(o.binDir, p.Module),
			Kubeconfig: filepath.Join(o.stateDir, p.Module+".kubeconfig"),
			Args:       append([]string{"--leader-elect", "--leader-election-namespace=" + p.Namespace}, extra[p.Name]...),
		})
		delete(extra, p.Name)
	}
	for name := range extra {
		return nil, fmt.Errorf("--manager-args names provider %s, which --providers does not select", name)
	}
	return ms, nil
}

// runDevManagers gives each manager its ServiceAccount's kubeconfig, then starts (or keeps)
// the processes and waits for them. cfg is the caller's connection to the cluster.
func runDevManagers(c *cobra.Command, g *globalOptions, cfg *rest.Config, o *initOptions, ps []components.Provider, ms []localmanagers.Manager) error {
	out := c.OutOrStdout()
	base, err := g.cluster.MinifiedKubeconfig()
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("connecting to the management cluster at %s: %w", cfg.Host, err)
	}
	if err := os.MkdirAll(o.stateDir, 0o700); err != nil {
		return fmt.Errorf("creating --state-dir: %w", err)
	}
	// Earlier versions gave every manager the caller's own credentials in this file.
	if err := os.Remove(filepath.Join(o.stateDir, "kubeconfig")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing the old shared kubeconfig: %w", err)
	}
	issuer := &devcreds.Issuer{Clientset: cs, Base: base, TTL: o.tokenTTL}
	for i, p := range ps {
		name, err := p.ServiceAccount()
		if err != nil {
			return err
		}
		sa := devcreds.ServiceAccount{Namespace: p.Namespace, Name: name}
		wrote, err := issuer.Ensure(c.Context(), sa, ms[i].Kubeconfig)
		if err != nil {
			return err
		}
		if wrote {
			fmt.Fprintf(out, "%s: runs as %s (new token, valid %s)\n", p.Module, sa.Username(), o.tokenTTL)
		}
	}
	r := o.devRunner(out)
	if _, err := r.Up(c.Context(), ms, o.timeout); err != nil {
		return err
	}
	fmt.Fprintf(out, "Managers running; logs in %s; stop them with: capstanctl init --dev --stop --state-dir %s\n", r.LogDir, o.stateDir)
	return nil
}

func (o *initOptions) devRunner(out io.Writer) *localmanagers.Runner {
	logDir := o.logDir
	if logDir == "" {
		logDir = o.stateDir
	}
	return &localmanagers.Runner{StateDir: o.stateDir, LogDir: logDir, Out: out}
}

// pointConversionAtDevManagers gives each manager its conversion webhook address now and
// renders it into its provider's CRDs (the Service in the components becomes the loopback URL),
// so that the CRDs are applied exactly as the manager configures them: a later init changes
// nothing that serves the older API versions, even while the managers run.
func (o *initOptions) pointConversionAtDevManagers(objs []*unstructured.Unstructured, ps []components.Provider, ms []localmanagers.Manager) error {
	r := o.devRunner(nil)
	for i, p := range ps {
		addr, err := r.WebhookAddr(ms[i].Name)
		if err != nil {
			return err
		}
		ms[i].WebhookAddr = addr
		if _, err := components.SetConversionURL(objs, p.Namespace, "https://"+addr+components.ConversionWebhookPath); err != nil {
			return err
		}
	}
	return nil
}

// stopDevManagers stops the processes a previous init --dev recorded, without a cluster.
func stopDevManagers(c *cobra.Command, o *initOptions, ps []components.Provider) error {
	r := &localmanagers.Runner{StateDir: o.stateDir, LogDir: o.logDir, Out: c.OutOrStdout()}
	var errs []error
	for _, p := range ps {
		if err := r.Stop(p.Module); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
