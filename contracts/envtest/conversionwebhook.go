package envtest

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// WaitForConversionWebhook waits until each named CRD calls its conversion webhook at url (a
// manager run as a local process, capstan.dev/contracts/conversionwebhook) with every version
// served: what the manager's readiness waits for.
func (e *Environment) WaitForConversionWebhook(t testing.TB, timeout time.Duration, url string, crdNames ...string) {
	t.Helper()
	WaitFor(t, timeout, "the conversion webhook to be configured in "+strings.Join(crdNames, ", "), func() (bool, error) {
		for _, name := range crdNames {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := e.Client.Get(context.Background(), client.ObjectKey{Name: name}, crd); err != nil {
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
