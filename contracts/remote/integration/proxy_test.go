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

package integration

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// proxyMode is how the proxy answers.
type proxyMode int32

const (
	forward      proxyMode = iota // pass every request to the envtest apiserver
	unavailable                   // answer 503, as an API server behind a dead load balancer would
	unauthorized                  // answer 401, as an API server that no longer accepts our token
)

// apiServerProxy is a TLS server in front of the envtest apiserver that a test can make fail:
// a workload cluster whose health the test controls, without hooks in the code under test.
type apiServerProxy struct {
	srv  *httptest.Server
	mode atomic.Int32
}

// newAPIServerProxy starts the proxy. Start it before the manager, so that it is closed only
// after the manager stopped (cleanups run last-in first-out) and no request is left hanging.
func newAPIServerProxy(t *testing.T) *apiServerProxy {
	t.Helper()
	host := env.Config.Host
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	target, err := url.Parse(host)
	require.NoError(t, err)
	// The proxy authenticates to the apiserver as the envtest administrator.
	transport, err := rest.TransportFor(env.Config)
	require.NoError(t, err)
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Header.Del("Authorization") // the workload kubeconfig's token means nothing here
		},
		Transport:     transport,
		FlushInterval: -1, // stream watches as they come
	}
	p := &apiServerProxy{}
	p.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch proxyMode(p.mode.Load()) {
		case unavailable:
			http.Error(w, "unavailable on purpose", http.StatusServiceUnavailable)
		case unauthorized:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`))
		default:
			rp.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *apiServerProxy) set(m proxyMode) { p.mode.Store(int32(m)) }

// kubeconfig points at the proxy, trusting its certificate, with a token the proxy drops.
func (p *apiServerProxy) kubeconfig(t *testing.T) []byte {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["workload"] = &clientcmdapi.Cluster{
		Server:                   p.srv.URL,
		CertificateAuthorityData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw}),
	}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: "dropped-by-the-proxy"}
	cfg.Contexts["admin@workload"] = &clientcmdapi.Context{Cluster: "workload", AuthInfo: "admin"}
	cfg.CurrentContext = "admin@workload"
	data, err := clientcmd.Write(*cfg)
	require.NoError(t, err)
	return data
}
