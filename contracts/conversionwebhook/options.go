package conversionwebhook

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/types"
)

// Options say where the conversion webhook listens and how the API server reaches it.
type Options struct {
	// BindAddress is host:port the webhook server listens on; empty disables the webhook (the
	// older API versions then stay unserved).
	BindAddress string
	// Service is namespace/name of the Service in front of the manager; empty means the API server
	// dials BindAddress directly, which must then be an IP address (a loopback one, locally).
	// With a Service, the replicas behind it share one CA and serving certificate through the
	// Secret <name>-cert in the Service's namespace (see CertSecret).
	Service string
	// URL, when set, is what the API server calls instead (https://host:port/path): a program
	// that puts its own proxy in front of the replicas, as the tests do (envtest cannot route to
	// a Service). The certificate is issued for its host. It has no flag.
	URL string
	// CertValidity is how long the CA and serving certificate are valid; they are replaced once
	// two thirds of it have passed.
	CertValidity time.Duration
	// ResyncInterval is how often the CRDs are checked and repaired (e.g. after capstanctl init
	// re-applied them).
	ResyncInterval time.Duration
	// TLSOpts adjust the server's TLS configuration (the manager's --tls-min-version and
	// --tls-cipher-suites). It has no flag of its own.
	TLSOpts []func(*tls.Config)
}

// DefaultOptions are the defaults of the flags.
func DefaultOptions() Options {
	return Options{CertValidity: 365 * 24 * time.Hour, ResyncInterval: time.Minute}
}

// AddFlags registers the webhook flags on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.BindAddress, "webhook-bind-address", o.BindAddress,
		"host:port the conversion webhook listens on (e.g. :9443 in a pod, 127.0.0.1:9443 as a local process); empty disables it and leaves the older API versions unserved.")
	fs.StringVar(&o.Service, "webhook-service", o.Service,
		"namespace/name of the Service that fronts the conversion webhook; without it the API server calls https://<webhook-bind-address>/convert directly.")
	fs.DurationVar(&o.CertValidity, "webhook-cert-validity", o.CertValidity,
		"Validity of the webhook's self-issued CA and serving certificate; both are replaced after two thirds of it.")
}

// Enabled reports whether a webhook should be served.
func (o Options) Enabled() bool { return o.BindAddress != "" }

// Validate names the flag at fault.
func (o Options) Validate() error {
	if !o.Enabled() {
		if o.Service != "" {
			return fmt.Errorf("--webhook-service needs --webhook-bind-address (the address the webhook listens on)")
		}
		return nil
	}
	host, port, err := splitHostPort(o.BindAddress)
	if err != nil {
		return err
	}
	if port == 0 {
		return fmt.Errorf("--webhook-bind-address %q needs a fixed port: the API server must be told where to call", o.BindAddress)
	}
	if o.Service != "" {
		if ns, name, ok := strings.Cut(o.Service, "/"); !ok || ns == "" || name == "" || strings.Contains(name, "/") {
			return fmt.Errorf("--webhook-service %q is not namespace/name, e.g. capstan-system/cluster-api-webhook-service", o.Service)
		}
	} else if net.ParseIP(host) == nil || net.ParseIP(host).IsUnspecified() {
		return fmt.Errorf("--webhook-bind-address %q: without --webhook-service the API server calls this address, so it must be an IP it can reach, e.g. 127.0.0.1:%d", o.BindAddress, port)
	}
	if o.URL != "" {
		if u, err := url.Parse(o.URL); err != nil || u.Scheme != "https" || u.Hostname() == "" {
			return fmt.Errorf("webhook URL %q is not https://host:port/path", o.URL)
		}
	}
	if o.CertValidity < 10*time.Second {
		return fmt.Errorf("--webhook-cert-validity must be at least 10s, got %s", o.CertValidity)
	}
	return nil
}

func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("--webhook-bind-address %q is not host:port: %w", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("--webhook-bind-address %q: port %q is not a port number", addr, p)
	}
	return host, port, nil
}

// serviceRef splits Service.
func (o Options) serviceRef() (namespace, name string) {
	namespace, name, _ = strings.Cut(o.Service, "/")
	return namespace, name
}

// CertSecret is the Secret (namespace, name) the replicas behind the Service share their CA and
// serving certificate through; ok is false without a Service (a local process, the only one the
// URL it is called at reaches, keeps them in memory).
func (o Options) CertSecret() (key types.NamespacedName, ok bool) {
	if o.Service == "" {
		return key, false
	}
	ns, name := o.serviceRef()
	return types.NamespacedName{Namespace: ns, Name: name + "-cert"}, true
}

// hosts are the names the serving certificate must carry.
func (o Options) hosts() []string {
	if o.URL != "" {
		u, _ := url.Parse(o.URL)
		return []string{u.Hostname()}
	}
	if o.Service != "" {
		ns, name := o.serviceRef()
		return []string{name + "." + ns + ".svc", name + "." + ns + ".svc.cluster.local"}
	}
	host, _, _ := splitHostPort(o.BindAddress)
	return []string{host}
}
