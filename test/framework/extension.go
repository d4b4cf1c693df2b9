package framework

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
)

// Extension is the test extension (capstan.dev/test/extension) running as a local process on a
// loopback port, registered by an ExtensionConfig whose namespaceSelector matches only one
// namespace, so that other tests' Clusters never call it.
type Extension struct {
	// Name is the ExtensionConfig's: handler names are <handler>.<Name>.
	Name string
	url  string
	mgmt client.Client
	cfg  *runtimev1.ExtensionConfig
	cmd  *exec.Cmd
	http *http.Client
}

// StartExtension runs the test extension binary bin, listening on addr, behind ExtensionConfig
// <ns>-ext (created here) and waits, until ctx ends, for the extension to write its CA into it:
// its control endpoint is then reachable. The extension logs to log; Stop ends it.
func StartExtension(ctx context.Context, mgmt client.Client, bin, addr, kubeconfig, ns string, log io.Writer) (*Extension, error) {
	e := &Extension{Name: ns + "-ext", url: "https://" + addr, mgmt: mgmt}
	e.cfg = &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: e.Name}, Spec: runtimev1.ExtensionConfigSpec{
		ClientConfig:      runtimev1.ClientConfig{URL: e.url},
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
	}}
	if err := mgmt.Create(ctx, e.cfg); err != nil {
		return nil, fmt.Errorf("creating ExtensionConfig %s: %w", e.Name, err)
	}
	e.cmd = exec.Command(bin, "--listen", addr, "--extension-config", e.Name, "--kubeconfig", kubeconfig)
	e.cmd.Stdout, e.cmd.Stderr = log, log
	if err := e.cmd.Start(); err != nil {
		e.Stop()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		err := mgmt.Get(ctx, client.ObjectKeyFromObject(e.cfg), e.cfg)
		return err == nil && len(e.cfg.Spec.ClientConfig.CABundle) > 0, client.IgnoreNotFound(err)
	})
	if err != nil {
		e.Stop()
		return nil, fmt.Errorf("waiting for the test extension to write its CA into ExtensionConfig %s: %w", e.Name, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(e.cfg.Spec.ClientConfig.CABundle) {
		e.Stop()
		return nil, fmt.Errorf("ExtensionConfig %s: spec.clientConfig.caBundle holds no PEM certificate", e.Name)
	}
	e.http = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	return e, nil
}

// Stop kills the extension and deletes its ExtensionConfig.
func (e *Extension) Stop() {
	if e.cmd != nil && e.cmd.Process != nil {
		_ = e.cmd.Process.Kill()
		_ = e.cmd.Wait()
	}
	_ = e.mgmt.Delete(context.Background(), e.cfg)
}

// Set makes hook answer body (the response's JSON fields, such as
// `{"retryAfterSeconds":2,"message":"held"}`) from now on.
func (e *Extension) Set(ctx context.Context, hook, body string) error {
	_, err := e.do(ctx, http.MethodPut, "/control/hooks/"+hook, body, http.StatusOK)
	return err
}

// Hold makes hook answer retryAfterSeconds 2 with message, until Allow.
func (e *Extension) Hold(ctx context.Context, hook, message string) error {
	return e.Set(ctx, hook, fmt.Sprintf(`{"status":"Success","retryAfterSeconds":2,"message":%q}`, message))
}

// Allow makes hook answer Success without a retry again.
func (e *Extension) Allow(ctx context.Context, hook string) error {
	_, err := e.do(ctx, http.MethodDelete, "/control/hooks/"+hook, "", http.StatusOK)
	return err
}

// LastRequest is the last request hook received, "" before the first.
func (e *Extension) LastRequest(ctx context.Context, hook string) (string, error) {
	body, err := e.do(ctx, http.MethodGet, "/control/requests/"+hook, "", http.StatusOK, http.StatusNotFound)
	if err != nil || body == nil {
		return "", err
	}
	return string(body), nil
}

// do calls the extension's control endpoint; a want status other than the first (such as 404
// for "nothing yet") returns a nil body.
func (e *Extension) do(ctx context.Context, method, path, body string, want ...int) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, e.url+path, bytes.NewBufferString(body))
	if err != nil {
		return nil, err
	}
	resp, err := e.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return nil, err
	case resp.StatusCode == want[0]:
		return got, nil
	}
	for _, w := range want[1:] {
		if resp.StatusCode == w {
			return nil, nil
		}
	}
	return nil, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, got)
}
