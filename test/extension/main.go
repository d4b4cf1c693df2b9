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

// Command extension is Capstan's test Runtime Extension (capstan.dev/test/extension/server): it
// serves discovery and a stub handler for every lifecycle hook over HTTPS with a certificate
// signed by a CA it makes at start, and writes that CA into its ExtensionConfig's caBundle
// (creating the ExtensionConfig, pointing at --url, if it does not exist), so the core manager
// trusts it without cert-manager. docs/extensions.md shows how to run it.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/conversionwebhook"
	"capstan.dev/test/extension/server"
)

func main() {
	listen := pflag.String("listen", "127.0.0.1:9443", "Address to serve HTTPS on.")
	extURL := pflag.String("url", "", "The URL the ExtensionConfig names (default https://<--listen>); its host is in the certificate.")
	name := pflag.String("extension-config", "test-extension", "Name of the ExtensionConfig to write the CA into (created when missing); empty: write none.")
	kubeconfig := pflag.String("kubeconfig", "", "Kubeconfig of the management cluster (default: in-cluster or $KUBECONFIG).")
	pflag.Parse()
	if err := run(*listen, *extURL, *name, *kubeconfig); err != nil {
		fmt.Fprintln(os.Stderr, "extension:", err)
		os.Exit(1)
	}
}

func run(listen, extURL, name, kubeconfig string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("parsing --listen: %w", err)
	}
	if extURL != "" {
		u, err := url.Parse(extURL)
		if err != nil {
			return fmt.Errorf("parsing --url: %w", err)
		}
		host = u.Hostname()
	}
	cert, caPEM, err := conversionwebhook.SelfSigned([]string{host}, 365*24*time.Hour)
	if err != nil {
		return err
	}
	l, err := tls.Listen("tcp", listen, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		return fmt.Errorf("listening on %s: %w", listen, err)
	}
	if extURL == "" {
		extURL = "https://" + l.Addr().String() // --listen may name port 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if name != "" {
		if err := writeCA(ctx, kubeconfig, name, extURL, caPEM); err != nil {
			return err
		}
	}
	srv := &http.Server{Handler: server.New(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	fmt.Printf("Serving the test extension at %s (ExtensionConfig %q)\n", extURL, name)
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// writeCA puts caPEM into the ExtensionConfig's caBundle, creating it (at extURL) when missing.
func writeCA(ctx context.Context, kubeconfig, name, extURL string, caPEM []byte) error {
	if kubeconfig != "" {
		if err := os.Setenv("KUBECONFIG", kubeconfig); err != nil {
			return err
		}
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading the kubeconfig: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := runtimev1.AddToScheme(scheme); err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	ext := &runtimev1.ExtensionConfig{}
	err = c.Get(ctx, client.ObjectKey{Name: name}, ext)
	if apierrors.IsNotFound(err) {
		ext.Name = name
		ext.Spec.ClientConfig = runtimev1.ClientConfig{URL: extURL, CABundle: caPEM}
		if err := c.Create(ctx, ext); err != nil {
			return fmt.Errorf("creating ExtensionConfig %s: %w", name, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading ExtensionConfig %s: %w", name, err)
	}
	before := ext.DeepCopy()
	ext.Spec.ClientConfig.CABundle = caPEM
	if err := c.Patch(ctx, ext, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("writing the CA into ExtensionConfig %s: %w", name, err)
	}
	return nil
}
