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

package kubeadmcontrolplane

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestServingCertificateExpiry_ReadsTheLeafCertificate: the expiry is read from the TLS handshake
// through the given dialler (the port-forward in production), whatever address it is asked for.
func TestServingCertificateExpiry_ReadsTheLeafCertificate(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	dial := func(ctx context.Context, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "tcp", srv.Listener.Addr().String())
	}
	got, err := servingCertificateExpiry(context.Background(), dial)
	require.NoError(t, err)
	require.True(t, got.Equal(srv.Certificate().NotAfter), "got %s, want %s", got, srv.Certificate().NotAfter)

	refuse := func(ctx context.Context, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "tcp", "127.0.0.1:1")
	}
	_, err = servingCertificateExpiry(context.Background(), refuse)
	require.Error(t, err)
}
