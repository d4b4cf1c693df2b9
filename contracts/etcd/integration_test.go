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
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"

	"capstan.dev/contracts/k8sbin"
)

// TestRealEtcd_ListsMembersAndRemovesOne runs the etcd binary of `make k8s-binaries` as a
// two-member cluster with client-cert-auth (serving certificate and trusted CA from a test
// <cluster>-etcd CA), and drives it through the real Client dialled straight at 127.0.0.1 (the
// port-forward is what changes in a workload cluster): it lists both members, removes the second,
// and reports a clear error for an ID no member has.
func TestRealEtcd_ListsMembersAndRemovesOne(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	e := startTLSEtcd(t)
	m1, tlsCfg := e.first, e.clientTLS

	c, err := New(ctx, m1.clientAddr, tlsCfg, nil)
	require.NoError(t, err)
	defer c.Close()
	waitFor(t, ctx, "m1 to answer", func() error {
		ms, err := c.Members(ctx)
		if err == nil && (len(ms) != 1 || ms[0].Name != "m1") {
			err = fmt.Errorf("members %+v", ms)
		}
		return err
	})

	// The second member joins the way kubeadm join does: MemberAdd first, then start it with
	// the whole cluster as its initial cluster and state "existing".
	m2 := newTestMember("m2")
	raw, err := clientv3.New(clientv3.Config{Endpoints: []string{m1.clientAddr}, TLS: tlsCfg, DialTimeout: 5 * time.Second})
	require.NoError(t, err)
	defer raw.Close()
	added, err := raw.MemberAdd(ctx, []string{m2.peerURL})
	require.NoError(t, err)
	e.startMember(t, m2, "existing", m1.initial()+","+m2.initial())

	var members []Member
	waitFor(t, ctx, "m2 to start and name itself", func() error {
		ms, err := c.Members(ctx)
		if err != nil {
			return err
		}
		members = ms
		sort.Slice(members, func(i, j int) bool { return members[i].Name < members[j].Name })
		if len(ms) != 2 || members[0].Name != "m1" || members[1].Name != "m2" {
			return fmt.Errorf("members %+v", ms)
		}
		return nil
	})
	require.Equal(t, added.Member.ID, members[1].ID)
	require.Equal(t, []string{m2.peerURL}, members[1].PeerURLs)
	require.Equal(t, []string{"https://" + m2.clientAddr}, members[1].ClientURLs)

	// Each member answers Status for itself: that is how the controller judges one member's
	// health, through a client connected to it alone.
	st, err := c.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, members[0].ID, st.ID, "the member the client is connected to answers")
	require.Contains(t, []uint64{members[0].ID, members[1].ID}, st.Leader)
	require.Empty(t, st.Errors)
	c2, err := New(ctx, m2.clientAddr, tlsCfg, nil)
	require.NoError(t, err)
	defer c2.Close()
	waitFor(t, ctx, "m2 to answer its status", func() error {
		st2, err := c2.Status(ctx)
		if err == nil && st2.ID != members[1].ID {
			err = fmt.Errorf("status %+v", st2)
		}
		return err
	})
	alarms, err := c.Alarms(ctx)
	require.NoError(t, err)
	require.Empty(t, alarms)

	// The leader hands its leadership over, through a client connected to it.
	leader, follower := c, members[1].ID
	if st.Leader == members[1].ID {
		leader, follower = c2, members[0].ID
	}
	waitFor(t, ctx, "the leadership to move", func() error { return leader.MoveLeader(ctx, follower) })
	st, err = c.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, follower, st.Leader)

	// etcd refuses a reconfiguration until the remaining members have been connected for its
	// health interval (5s after m2 started): the controller retries the same way, next pass.
	waitFor(t, ctx, "m2 to be removed", func() error { return c.RemoveMember(ctx, members[1].ID) })
	ms, err := c.Members(ctx)
	require.NoError(t, err)
	require.Len(t, ms, 1)
	require.Equal(t, "m1", ms[0].Name)

	err = c.RemoveMember(ctx, members[1].ID)
	require.ErrorIs(t, err, ErrMemberNotFound, "removing it again")

	// The removed member stops: its Status is an error, not a stale answer.
	waitFor(t, ctx, "the removed m2 to stop answering", func() error {
		short, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if st, err := c2.Status(short); err == nil {
			return fmt.Errorf("m2 still answers: %+v", st)
		}
		return nil
	})
	require.ErrorContains(t, err, fmt.Sprintf("%x", members[1].ID))

	// Without a certificate signed by the etcd CA nothing is answered.
	other, err := generateCA(time.Now())
	require.NoError(t, err)
	otherCfg, err := ClientTLSConfig(other.Cert, other.Key, "localhost", time.Now())
	require.NoError(t, err)
	otherCfg.RootCAs = tlsCfg.RootCAs // trust the server, present a foreign client certificate
	short, cancelShort := context.WithTimeout(ctx, 3*time.Second)
	defer cancelShort()
	if bad, err := New(short, m1.clientAddr, otherCfg, nil); err == nil {
		_, err = bad.Members(short)
		bad.Close()
		require.Error(t, err, "a client certificate from another CA is refused")
	}
}

// tlsEtcd is the etcd binary of `make k8s-binaries` running with client-cert-auth: its files
// (a test <cluster>-etcd CA, the serving certificate it signs), the first member, started as a
// new cluster, and a client TLS configuration signed by the CA as the controller makes one.
type tlsEtcd struct {
	bin, dir, caFile, serverCert, serverKey string
	first                                   *testMember
	clientTLS                               *tls.Config
}

func startTLSEtcd(t *testing.T) *tlsEtcd {
	t.Helper()
	bin, err := k8sbin.Path("etcd")
	if err != nil {
		t.Skipf("no etcd binary (run make k8s-binaries): %v", err)
	}
	e := &tlsEtcd{bin: bin, dir: t.TempDir(), first: newTestMember("m1")}
	ca, err := generateCA(time.Now())
	require.NoError(t, err)
	e.serverCert, e.serverKey = writeServerCert(t, e.dir, ca)
	e.caFile = filepath.Join(e.dir, "ca.crt")
	require.NoError(t, os.WriteFile(e.caFile, ca.Cert, 0o600))
	e.startMember(t, e.first, "new", e.first.initial())
	e.clientTLS, err = ClientTLSConfig(ca.Cert, ca.Key, "localhost", time.Now())
	require.NoError(t, err)
	return e
}

// startMember starts m with the cluster's certificates, in state new or existing.
func (e *tlsEtcd) startMember(t *testing.T, m *testMember, state, initialCluster string) {
	m.start(t, e.bin, e.dir, e.caFile, e.serverCert, e.serverKey, state, initialCluster)
}

type testMember struct {
	name, clientAddr, peerURL string
}

func newTestMember(name string) *testMember {
	return &testMember{name: name, clientAddr: fmt.Sprintf("127.0.0.1:%d", freePort()), peerURL: fmt.Sprintf("http://127.0.0.1:%d", freePort())}
}

func (m *testMember) initial() string { return m.name + "=" + m.peerURL }

// start runs the member and stops it (by its PID) when the test ends, whatever the outcome;
// Pdeathsig stops it too should the test binary itself die.
func (m *testMember) start(t *testing.T, bin, dir, caFile, certFile, keyFile, state, initialCluster string) {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, m.name+".log"))
	require.NoError(t, err)
	cmd := exec.Command(bin,
		"--name", m.name,
		"--data-dir", filepath.Join(dir, m.name),
		"--listen-client-urls", "https://"+m.clientAddr,
		"--advertise-client-urls", "https://"+m.clientAddr,
		"--listen-peer-urls", m.peerURL,
		"--initial-advertise-peer-urls", m.peerURL,
		"--initial-cluster", initialCluster,
		"--initial-cluster-state", state,
		"--client-cert-auth", "--trusted-ca-file", caFile, "--cert-file", certFile, "--key-file", keyFile,
		"--listen-metrics-urls", fmt.Sprintf("http://127.0.0.1:%d", freePort()),
		"--log-level", "warn",
	)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		_ = cmd.Wait()
		_ = log.Close()
		if t.Failed() {
			out, _ := os.ReadFile(log.Name())
			t.Logf("etcd %s log:\n%s", m.name, out)
		}
	})
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// writeServerCert writes a serving certificate for localhost/127.0.0.1 signed by ca.
func writeServerCert(t *testing.T, dir string, ca *keyPair) (certFile, keyFile string) {
	t.Helper()
	cas, err := cert.ParseCertsPEM(ca.Cert)
	require.NoError(t, err)
	caKey, err := keyutil.ParsePrivateKeyPEM(ca.Key)
	require.NoError(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, cas[0], key.Public(), caKey.(crypto.Signer))
	require.NoError(t, err)
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	require.NoError(t, err)
	certFile, keyFile = filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, keyPEM, 0o600))
	return certFile, keyFile
}

func waitFor(t *testing.T, ctx context.Context, what string, f func() error) {
	t.Helper()
	var last error
	for {
		last = f()
		if last == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, errors.Join(ctx.Err(), last))
		case <-time.After(200 * time.Millisecond):
		}
	}
}
