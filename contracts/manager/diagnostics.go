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

package manager

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/pprof"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The diagnostics endpoint follows upstream Cluster API's flags: --diagnostics-address serves
// /metrics over HTTPS, each request authenticated (TokenReview) and authorized
// (SubjectAccessReview of the non-resource path, e.g. get /metrics) by the management
// cluster, as Kubernetes components serve theirs; pprof and the log verbosity handler (PUT
// /debug/flags/v) are served there too, as upstream does, because they are as protected as the
// metrics. --insecure-diagnostics serves plain HTTP without authentication, for local use, with
// pprof only when --profiling asks for it and never the verbosity handler. The certificate
// is self-signed and kept in memory (the manager's root filesystem is read-only): scrapers
// authenticate the manager by its Service, not by the certificate, as with kube-controller-manager.
const defaultDiagnosticsAddress = ":8443"

// TLS versions --tls-min-version accepts, by upstream's names.
var tlsVersions = map[string]uint16{"VersionTLS12": tls.VersionTLS12, "VersionTLS13": tls.VersionTLS13}

func (o *Options) addDiagnosticsFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.DiagnosticsAddress, "diagnostics-address", o.DiagnosticsAddress,
		"Address the diagnostics endpoint binds to; \"0\" disables it. It serves /metrics (and pprof under /debug/pprof/, and PUT /debug/flags/v to change the log verbosity) over HTTPS, "+
			"authenticated and authorized by the management cluster (a bearer token allowed the request's verb on the path); --insecure-diagnostics serves plain HTTP without authentication.")
	fs.BoolVar(&o.InsecureDiagnostics, "insecure-diagnostics", o.InsecureDiagnostics,
		"Serve the diagnostics endpoint over plain HTTP without authentication or authorization (local use only); pprof then only with --profiling, and no /debug/flags/v.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress,
		"Deprecated: use --diagnostics-address (with --insecure-diagnostics to keep plain HTTP). When set, metrics are served on this address over plain HTTP without authentication; \"0\" disables them.")
	_ = fs.MarkDeprecated("metrics-bind-address", "use --diagnostics-address instead, with --insecure-diagnostics to keep serving plain HTTP without authentication")
	fs.StringVar(&o.TLSMinVersion, "tls-min-version", o.TLSMinVersion,
		"Minimum TLS version of the diagnostics and conversion webhook servers: VersionTLS12 or VersionTLS13.")
	fs.StringSliceVar(&o.TLSCipherSuites, "tls-cipher-suites", o.TLSCipherSuites,
		"Comma-separated TLS 1.2 cipher suites of the diagnostics and conversion webhook servers (Go's names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256); empty means Go's defaults.")
}

// validateDiagnostics names the flag of a bad value.
func (o *Options) validateDiagnostics() error {
	if _, ok := tlsVersions[o.TLSMinVersion]; !ok {
		return fmt.Errorf("--tls-min-version %q is not supported: use VersionTLS12 or VersionTLS13", o.TLSMinVersion)
	}
	if len(o.TLSCipherSuites) > 0 && o.TLSMinVersion == "VersionTLS13" {
		return fmt.Errorf("--tls-cipher-suites cannot be set with --tls-min-version VersionTLS13: TLS 1.3's cipher suites are not configurable")
	}
	if _, err := cipherSuiteIDs(o.TLSCipherSuites); err != nil {
		return err
	}
	if o.Profiling && o.metricsAddress() == "0" {
		return fmt.Errorf("--profiling serves on the diagnostics endpoint: it needs --diagnostics-address, which is \"0\" (disabled)")
	}
	return nil
}

// cipherSuiteIDs resolves cipher suite names; insecure suites are refused.
func cipherSuiteIDs(names []string) ([]uint16, error) {
	var ids []uint16
	for _, n := range names {
		n = strings.TrimSpace(n)
		i := slices.IndexFunc(tls.CipherSuites(), func(s *tls.CipherSuite) bool { return s.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("--tls-cipher-suites: %q is not a supported cipher suite (insecure suites are refused); supported: %s", n, strings.Join(secureSuiteNames(), ", "))
		}
		ids = append(ids, tls.CipherSuites()[i].ID)
	}
	return ids, nil
}

func secureSuiteNames() []string {
	var out []string
	for _, s := range tls.CipherSuites() {
		out = append(out, s.Name)
	}
	return out
}

// TLSOpts apply --tls-min-version and --tls-cipher-suites to a server's TLS configuration.
func (o *Options) TLSOpts() []func(*tls.Config) {
	minVersion := tlsVersions[o.TLSMinVersion]
	suites, _ := cipherSuiteIDs(o.TLSCipherSuites) // validated
	return []func(*tls.Config){func(c *tls.Config) {
		c.MinVersion = minVersion
		if len(suites) > 0 {
			c.CipherSuites = suites
		}
	}}
}

// metricsAddress is where metrics are served: the deprecated --metrics-bind-address wins when
// set, as upstream's deprecated flag does.
func (o *Options) metricsAddress() string {
	if o.MetricsBindAddress != "" {
		return o.MetricsBindAddress
	}
	return o.DiagnosticsAddress
}

// secureDiagnostics says whether the endpoint authenticates and authorizes its callers.
func (o *Options) secureDiagnostics() bool {
	return o.MetricsBindAddress == "" && !o.InsecureDiagnostics
}

// metricsOptions configures controller-runtime's metrics server from the flags.
func (o *Options) metricsOptions() metricsserver.Options {
	if !o.secureDiagnostics() {
		var extra map[string]http.Handler
		if o.Profiling {
			extra = pprofHandlers()
		}
		return metricsserver.Options{BindAddress: o.metricsAddress(), ExtraHandlers: extra}
	}
	return metricsserver.Options{
		BindAddress:    o.DiagnosticsAddress,
		SecureServing:  true,
		FilterProvider: authenticatedAndAuthorized,
		TLSOpts:        o.TLSOpts(),
		ExtraHandlers:  o.secureHandlers(),
	}
}

// secureHandlers are what only the authenticated endpoint serves, as upstream: pprof and the
// log verbosity (PUT /debug/flags/v, verbosity.go), which no unauthenticated caller may change.
func (o *Options) secureHandlers() map[string]http.Handler {
	h := pprofHandlers()
	h[verbosityPath] = verbosityHandler(o.atomicLevel(), ctrl.Log.WithName("diagnostics"))
	return h
}

// authenticatedAndAuthorized is controller-runtime's filter (TokenReview, then
// SubjectAccessReview of the request's verb and path); a variable so its type is checked here.
var authenticatedAndAuthorized func(*rest.Config, *http.Client) (metricsserver.Filter, error) = filters.WithAuthenticationAndAuthorization

// pprofHandlers are net/http/pprof's handlers. pprof.Index serves every named profile (heap,
// goroutine, allocs, ...) below its prefix.
func pprofHandlers() map[string]http.Handler {
	return map[string]http.Handler{
		"/debug/pprof/":        http.HandlerFunc(pprof.Index),
		"/debug/pprof/cmdline": http.HandlerFunc(pprof.Cmdline),
		"/debug/pprof/profile": http.HandlerFunc(pprof.Profile),
		"/debug/pprof/symbol":  http.HandlerFunc(pprof.Symbol),
		"/debug/pprof/trace":   http.HandlerFunc(pprof.Trace),
	}
}
