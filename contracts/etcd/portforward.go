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

package etcd

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// Port is etcd's client port on a control plane node.
const Port = 2379

// PodName is the static Pod kubeadm runs etcd in on node nodeName.
func PodName(nodeName string) string { return "etcd-" + nodeName }

// DialPod connects to the etcd member on node through the workload API server of config: a
// port-forward to Pod kube-system/etcd-<node>:2379, with a client certificate signed by the etcd
// CA (caCertPEM, caKeyPEM) valid from now. The path the KubeadmControlPlane controller and
// capstanctl reach etcd by: no SSH, no node access.
func DialPod(ctx context.Context, config *rest.Config, caCertPEM, caKeyPEM []byte, node string, now time.Time) (Client, error) {
	// kubeadm's etcd serving certificate always holds localhost; the node name is not always
	// the host name it holds.
	tlsCfg, err := ClientTLSConfig(caCertPEM, caKeyPEM, "localhost", now)
	if err != nil {
		return nil, fmt.Errorf("the etcd CA: %w", err)
	}
	dial, err := PortForwardDialer(config, "kube-system", PodName(node), Port)
	if err != nil {
		return nil, err
	}
	// The dialler ignores the address, but etcd's resolver makes the endpoint's host the TLS
	// server name of every connection: it must be a name the serving certificate holds.
	return New(ctx, fmt.Sprintf("localhost:%d", Port), tlsCfg, dial)
}

// PortForwardDialer returns a DialFunc whose every connection is a new port-forward stream,
// through the API server of config, to port of Pod namespace/pod; the address dialled is
// ignored. It tries the WebSocket tunnel first and falls back to SPDY, as kubectl does.
func PortForwardDialer(config *rest.Config, namespace, pod string, port int) (DialFunc, error) {
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("building a client for the port-forward: %w", err)
	}
	u := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("portforward").URL()
	transport, upgrader, err := spdy.RoundTripperFor(config)
	if err != nil {
		return nil, fmt.Errorf("building the SPDY transport for the port-forward: %w", err)
	}
	spdyDialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, u)
	wsDialer, err := portforward.NewSPDYOverWebsocketDialer(u, config)
	if err != nil {
		return nil, fmt.Errorf("building the WebSocket dialer for the port-forward: %w", err)
	}
	dialer := portforward.NewFallbackDialer(wsDialer, spdyDialer, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	target := fmt.Sprintf("%s/%s:%d", namespace, pod, port)
	var requestID atomic.Int64
	return func(ctx context.Context, _ string) (net.Conn, error) {
		type result struct {
			conn httpstream.Connection
			err  error
		}
		done := make(chan result, 1)
		go func() { // Dial takes no context: give up waiting when ctx ends, and close a late connection
			conn, _, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
			done <- result{conn, err}
		}()
		var conn httpstream.Connection
		select {
		case <-ctx.Done():
			go func() {
				if r := <-done; r.conn != nil {
					_ = r.conn.Close()
				}
			}()
			return nil, fmt.Errorf("port-forwarding to %s: %w", target, ctx.Err())
		case r := <-done:
			if r.err != nil {
				return nil, fmt.Errorf("port-forwarding to %s: %w", target, r.err)
			}
			conn = r.conn
		}
		id := strconv.FormatInt(requestID.Add(1), 10)
		headers := http.Header{}
		headers.Set(corev1.StreamType, corev1.StreamTypeError)
		headers.Set(corev1.PortHeader, strconv.Itoa(port))
		headers.Set(corev1.PortForwardRequestIDHeader, id)
		errorStream, err := conn.CreateStream(headers)
		if err != nil {
			_ = conn.Close()
			return nil, fmt.Errorf("port-forwarding to %s: creating the error stream: %w", target, err)
		}
		_ = errorStream.Close() // we never write to it; the server reports failures by closing the data stream
		headers.Set(corev1.StreamType, corev1.StreamTypeData)
		data, err := conn.CreateStream(headers)
		if err != nil {
			_ = conn.Close()
			return nil, fmt.Errorf("port-forwarding to %s: creating the data stream: %w", target, err)
		}
		return &streamConn{conn: conn, stream: data, remote: target}, nil
	}, nil
}

// streamConn is a port-forward data stream as a net.Conn. Deadlines are not supported: gRPC
// bounds its calls with contexts.
type streamConn struct {
	conn   httpstream.Connection
	stream httpstream.Stream
	remote string
}

func (c *streamConn) Read(b []byte) (int, error)  { return c.stream.Read(b) }
func (c *streamConn) Write(b []byte) (int, error) { return c.stream.Write(b) }
func (c *streamConn) Close() error {
	_ = c.stream.Close()
	return c.conn.Close()
}
func (c *streamConn) LocalAddr() net.Addr              { return pfAddr("local") }
func (c *streamConn) RemoteAddr() net.Addr             { return pfAddr(c.remote) }
func (c *streamConn) SetDeadline(time.Time) error      { return nil }
func (c *streamConn) SetReadDeadline(time.Time) error  { return nil }
func (c *streamConn) SetWriteDeadline(time.Time) error { return nil }

type pfAddr string

func (a pfAddr) Network() string { return "portforward" }
func (a pfAddr) String() string  { return string(a) }
