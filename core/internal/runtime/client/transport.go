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

package client

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
)

// baseURL is where an ExtensionConfig's server is: its url, or its Service's in-cluster name.
func baseURL(cfg runtimev1.ClientConfig) (*url.URL, error) {
	if cfg.URL != "" {
		u, err := url.Parse(cfg.URL)
		if err != nil {
			return nil, fmt.Errorf("parsing url %q: %w", cfg.URL, err)
		}
		return u, nil
	}
	if s := cfg.Service; s != nil {
		port := int32(443)
		if s.Port != nil {
			port = *s.Port
		}
		return &url.URL{Scheme: "https", Host: s.Name + "." + s.Namespace + ".svc:" + strconv.Itoa(int(port)), Path: s.Path}, nil
	}
	return nil, errors.New("clientConfig has neither url nor service")
}

// httpClients caches one client per (host, CA bundle): connections are reused across calls,
// and a new bundle gets a new client (so a rotated CA is trusted at once).
type httpClients struct {
	mu      sync.Mutex
	clients map[string]*http.Client
}

func (c *httpClients) get(host string, caBundle []byte) (*http.Client, error) {
	key := fmt.Sprintf("%s/%x", host, sha256.Sum256(caBundle))
	c.mu.Lock()
	defer c.mu.Unlock()
	if hc, ok := c.clients[key]; ok {
		return hc, nil
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, errors.New("caBundle holds no PEM certificate")
		}
		tlsConfig.RootCAs = pool
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsConfig
	transport.Proxy = nil // extensions are reached directly, as the apiserver reaches webhooks
	hc := &http.Client{Transport: transport,
		// A redirect is an error (upstream follows none): the answer must come from the server
		// the ExtensionConfig names.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if c.clients == nil {
		c.clients = map[string]*http.Client{}
	}
	c.clients[key] = hc
	return hc, nil
}
