package conversionwebhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	crconversion "sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	"capstan.dev/contracts/contract"
	"capstan.dev/contracts/conversion"
)

// Path is where the webhook server serves conversions.
const Path = "/convert"

// Kind is a kind whose CRD the webhook serves conversions for.
type Kind struct {
	// GroupKind names the kind; its CRD is found by the name the core derives for it.
	GroupKind schema.GroupKind
	// Converter builds the kind's hub-and-spoke converter (controller-runtime's
	// conversion.NewHubSpokeConverter). Every version of the CRD that the manager's scheme
	// knows is turned on once the webhook serves it.
	Converter func(*runtime.Scheme) (crconversion.Converter, error)
}

// Setup adds to mgr a webhook server that converts kinds, a controller that issues and rotates
// its certificate and keeps the kinds' CRDs pointed at it, and a readiness check
// ("conversion-webhook") that passes once every CRD is. It does nothing when o is not Enabled.
func Setup(mgr ctrl.Manager, o Options, kinds []Kind) error {
	if !o.Enabled() {
		return nil
	}
	if err := o.Validate(); err != nil {
		return err
	}
	if err := apiextensionsv1.AddToScheme(mgr.GetScheme()); err != nil {
		return err
	}
	for _, k := range kinds {
		conv, err := k.Converter(mgr.GetScheme())
		if err != nil {
			return fmt.Errorf("building the converter of %s: %w", k.GroupKind, err)
		}
		if err := mgr.GetConverterRegistry().RegisterConverter(k.GroupKind, conv); err != nil {
			return err
		}
	}
	c, err := newController(mgr.GetAPIReader(), mgr.GetClient(), mgr.GetScheme(), o, kinds)
	if err != nil {
		return err
	}
	host, port, _ := splitHostPort(o.BindAddress)
	// The server asks for the certificate on every handshake: a rotation takes effect at once,
	// with no file to write (the pod's root filesystem is read-only) or watch.
	tlsOpts := append(slices.Clone(o.TLSOpts), func(cfg *tls.Config) { cfg.GetCertificate = c.getCertificate })
	c.server = webhook.NewServer(webhook.Options{Host: host, Port: port, TLSOpts: tlsOpts})
	c.server.Register(Path, crconversion.NewWebhookHandler(mgr.GetScheme(), mgr.GetConverterRegistry()))
	if err := mgr.Add(c.server); err != nil {
		return err
	}
	if err := mgr.Add(c); err != nil {
		return err
	}
	return mgr.AddReadyzCheck("conversion-webhook", c.readyCheck)
}

// controller owns the certificate and the CRD fields; it runs in every replica.
type controller struct {
	reader client.Reader
	writer client.Writer
	scheme *runtime.Scheme
	opts   Options
	kinds  []Kind
	server webhook.Server
	now    func() time.Time
	store  trustStore

	root    *trustRoot          // as last loaded; nil until the first load
	current *servingCertificate // what the server serves
	serving atomic.Pointer[tls.Certificate]
	ready   atomic.Bool
}

func newController(reader client.Reader, writer client.Writer, scheme *runtime.Scheme, o Options, kinds []Kind) (*controller, error) {
	c := &controller{reader: reader, writer: writer, scheme: scheme, opts: o, kinds: kinds, now: time.Now}
	if c.opts.ResyncInterval <= 0 {
		c.opts.ResyncInterval = time.Minute
	}
	if key, ok := o.CertSecret(); ok {
		c.store = &secretStore{reader: reader, writer: writer, key: key, hosts: o.hosts(), validity: o.CertValidity,
			now: func() time.Time { return c.now() }}
		return c, nil
	}
	cert, err := issue(o.hosts(), o.CertValidity, c.now())
	if err != nil {
		return nil, err
	}
	c.store = &memoryStore{root: &trustRoot{current: cert}}
	c.root = c.store.(*memoryStore).root
	c.serve(cert)
	return c, nil
}

// NeedLeaderElection is false: every replica serves conversions, so every replica needs a
// trusted certificate.
func (c *controller) NeedLeaderElection() bool { return false }

// Start loads the certificate, waits for the server, then keeps the CRDs and the certificate
// right until ctx ends.
func (c *controller) Start(ctx context.Context) error {
	log := ctrl.LoggerFrom(ctx).WithName("conversion-webhook")
	ctx = ctrl.LoggerInto(ctx, log)
	for c.current == nil { // the server needs a certificate to start (it answers TLS at once)
		root, err := c.store.load(ctx, nil)
		if err == nil {
			c.root = root
			c.serve(root.current)
			break
		}
		log.Error(err, "Loading the conversion webhook certificate; retrying")
		if !sleep(ctx, time.Second) {
			return nil
		}
	}
	if err := c.waitForServer(ctx); err != nil {
		return nil //nolint:nilerr // ctx ended: a clean stop
	}
	for {
		if err := c.reconcile(ctx); err != nil {
			log.Error(err, "Configuring the conversion webhook in the CRDs; retrying")
		}
		wait := c.opts.ResyncInterval
		if until := c.root.current.renewAt.Sub(c.now()); until < wait {
			wait = max(until, 100*time.Millisecond)
		}
		if !c.ready.Load() {
			wait = min(wait, time.Second)
		}
		if !sleep(ctx, wait) {
			return nil
		}
	}
}

// sleep waits for d; false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

func (c *controller) waitForServer(ctx context.Context) error {
	check := c.server.StartedChecker()
	for check(nil) != nil {
		if !sleep(ctx, 50*time.Millisecond) {
			return ctx.Err()
		}
	}
	return nil
}

// reconcile reads the trust root (rotating it when its certificate is due), makes every CRD
// trust it, and only then serves its certificate, so the API server never meets a certificate
// it does not trust: until then the one served before stays, which the bundle still holds.
func (c *controller) reconcile(ctx context.Context) error {
	root, err := c.store.load(ctx, c.current.caPEM)
	if err != nil {
		c.ready.Store(false)
		return err
	}
	if !c.now().Before(root.current.renewAt) {
		next, err := issue(c.opts.hosts(), c.opts.CertValidity, c.now())
		if err != nil {
			return err
		}
		ctrl.LoggerFrom(ctx).Info("Rotating the conversion webhook certificate", "notAfter", next.notAfter)
		if root, err = c.store.rotate(ctx, root, next); err != nil {
			c.ready.Store(false)
			return err
		}
	}
	c.root = root
	if err := c.injectAll(ctx, root.bundle(c.now())); err != nil {
		c.ready.Store(false)
		return err
	}
	c.serve(root.current)
	c.ready.Store(true)
	return nil
}

func (c *controller) injectAll(ctx context.Context, bundle []byte) error {
	var errs []error
	for _, k := range c.kinds {
		if err := c.inject(ctx, contract.CalculateCRDName(k.GroupKind.Group, k.GroupKind.Kind), bundle); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// inject points one CRD at the webhook, trusting exactly bundle, and turns on every version
// the scheme can convert; it writes only on change.
func (c *controller) inject(ctx context.Context, name string, bundle []byte) error {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.reader.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
		return fmt.Errorf("reading CRD %s: %w", name, err)
	}
	before := crd.DeepCopy()
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{
			ClientConfig:             c.clientConfig(bundle),
			ConversionReviewVersions: []string{"v1"},
		},
	}
	for i, v := range crd.Spec.Versions {
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
		if c.scheme.Recognizes(gvk) {
			crd.Spec.Versions[i].Served = true
		}
	}
	if equalConversion(before, crd) {
		return nil
	}
	ctrl.LoggerFrom(ctx).Info("Pointing the CRD at the conversion webhook", "CustomResourceDefinition", name)
	if err := c.writer.Patch(ctx, crd, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("patching CRD %s: %w", name, err)
	}
	return nil
}

func (c *controller) clientConfig(caBundle []byte) *apiextensionsv1.WebhookClientConfig {
	if c.opts.URL != "" {
		url := c.opts.URL
		return &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caBundle}
	}
	if c.opts.Service != "" {
		ns, name := c.opts.serviceRef()
		path, port := Path, int32(443)
		return &apiextensionsv1.WebhookClientConfig{
			Service:  &apiextensionsv1.ServiceReference{Namespace: ns, Name: name, Path: &path, Port: &port},
			CABundle: caBundle,
		}
	}
	url := "https://" + c.opts.BindAddress + Path
	return &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caBundle}
}

func (c *controller) serve(cert *servingCertificate) {
	c.current = cert
	c.serving.Store(&cert.tls)
}

func (c *controller) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return c.serving.Load(), nil
}

func (c *controller) readyCheck(_ *http.Request) error {
	if !c.ready.Load() {
		return errors.New("the conversion webhook is not yet configured in every CRD it serves")
	}
	return nil
}

// HubSpokeKind is the Kind for gk whose hub (the storage version) converts to and from one
// spoke with up and down; resolver names the API version of references that clients of the
// spoke did not write (conversion.CRDContractResolver in a manager).
func HubSpokeKind[H, S client.Object](gk schema.GroupKind, hub H, spoke S, up func(context.Context, S, H) error,
	down func(context.Context, H, S, conversion.APIVersionResolver) error, resolver conversion.APIVersionResolver) Kind {
	return HubSpokesKind(gk, hub, Spoke(spoke, up, down, resolver))
}

// HubSpokesKind is the Kind for gk whose hub converts to and from several spokes (the IPAM kinds
// are served at v1alpha1 and v1beta1 besides v1beta2); a conversion between two spokes goes
// through the hub.
func HubSpokesKind[H client.Object](gk schema.GroupKind, hub H, spokes ...crconversion.SpokeConverter[H]) Kind {
	return Kind{GroupKind: gk, Converter: crconversion.NewHubSpokeConverter(hub, spokes...)}
}

// Spoke is one spoke of HubSpokesKind, converted with up and down (see HubSpokeKind).
func Spoke[H, S client.Object](spoke S, up func(context.Context, S, H) error,
	down func(context.Context, H, S, conversion.APIVersionResolver) error, resolver conversion.APIVersionResolver) crconversion.SpokeConverter[H] {
	return crconversion.NewSpokeConverter(spoke, func(ctx context.Context, h H, s S) error { return down(ctx, h, s, resolver) }, up)
}
