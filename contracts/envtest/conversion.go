package envtest

import (
	"context"
	"net"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FreeLoopbackAddr returns a 127.0.0.1 address with a port free right now, for a server a test
// starts (a manager's conversion webhook, as `capstanctl init --dev` gives it one).
func FreeLoopbackAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free loopback port: %v", err)
	}
	defer l.Close()
	return l.Addr().String()
}

// WaitForConversionWebhook waits until every CRD of crdNames points its conversion webhook at
// url and serves all its versions: what a manager's conversionwebhook does before v1beta1 works.
func (e *Environment) WaitForConversionWebhook(t testing.TB, url string, crdNames ...string) {
	t.Helper()
	ctx := context.Background()
	WaitFor(t, 60*time.Second, "the conversion webhook to be configured in "+crdNames[0]+" and the other CRDs", func() (bool, error) {
		for _, name := range crdNames {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := e.Client.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
				return false, err
			}
			c := crd.Spec.Conversion
			if c == nil || c.Webhook == nil || c.Webhook.ClientConfig == nil || ptr.Deref(c.Webhook.ClientConfig.URL, "") != url {
				return false, nil
			}
			for _, v := range crd.Spec.Versions {
				if !v.Served {
					return false, nil
				}
			}
		}
		return true, nil
	})
}
