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

package kubeadmconfig

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
)

// testTokenTTL is the --bootstrap-token-ttl of the tests that watch tokens age in real time:
// a token is then checked every 10 s and refreshed or rotated with less than 15 s left.
const testTokenTTL = 30 * time.Second

func tokenOf(cfg *bootstrapv1.KubeadmConfig) string {
	return cfg.Spec.JoinConfiguration.Discovery.BootstrapToken.Token
}

// tokenSecret reads the Secret of token in the workload cluster (the envtest API server).
func tokenSecret(token string) (*corev1.Secret, error) {
	id, _, _ := strings.Cut(token, ".")
	s := &corev1.Secret{}
	err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: "bootstrap-token-" + id}, s)
	return s, err
}

func tokenExpiration(token string) (time.Time, error) {
	s, err := tokenSecret(token)
	if err != nil {
		return time.Time{}, err
	}
	return time.Parse(time.RFC3339, string(s.Data["expiration"]))
}

func requireTokenExpiration(t *testing.T, token string) time.Time {
	t.Helper()
	e, err := tokenExpiration(token)
	require.NoError(t, err)
	return e
}

// newJoinableFixture is a Cluster whose control plane is initialized, so Machines and pools can
// join it.
func newJoinableFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	f.initializeControlPlane(t)
	f.generateCertificates(t)
	return f
}

// waitTokenReplaced waits, up to within, for a token other than old in the spec of cfg.
func waitTokenReplaced(t *testing.T, cfg *bootstrapv1.KubeadmConfig, old string, within time.Duration) *bootstrapv1.KubeadmConfig {
	t.Helper()
	var cur *bootstrapv1.KubeadmConfig
	envtest.WaitFor(t, within, "token "+old[:6]+" of KubeadmConfig "+cfg.Name+" to be replaced", func() (bool, error) {
		cur = getConfig(t, cfg)
		if tokenOf(cur) == old {
			return false, fmt.Errorf("still token %s", old[:6])
		}
		return true, nil
	})
	return cur
}

// setNodeRef plays the core's Machine controller finding the Machine's Node.
func setNodeRef(t *testing.T, m *clusterv1.Machine) {
	t.Helper()
	envtest.UpdateStatus(t, env.Client, m, func() { m.Status.NodeRef = clusterv1.MachineNodeReference{Name: m.Name} })
}

// waitExpirationPushedOut waits for the controller to refresh token by itself: with less than
// TTL/2 left, the check every TTL/3 pushes its expiration out past after.
func waitExpirationPushedOut(t *testing.T, token string, after time.Time) time.Time {
	t.Helper()
	var e time.Time
	envtest.WaitFor(t, testTokenTTL+testTokenTTL/3, "the expiration of token "+token[:6]+" to be pushed out past "+after.Format(time.RFC3339), func() (bool, error) {
		var err error
		e, err = tokenExpiration(token)
		return err == nil && e.After(after), err
	})
	return e
}

func TestBootstrapToken_RefreshedUntilTheMachineJoinsThenLeftToExpire(t *testing.T) {
	startController(t, withTokenTTL(testTokenTTL))
	f := newJoinableFixture(t)
	m, cfg := f.newMachine(t, "worker-0", false)
	got := waitDataSecret(t, cfg)
	token := tokenOf(got)
	require.Equal(t, token[:6], got.Annotations[bootstrapv1.ManagedBootstrapTokenAnnotation], "the token is recorded as created by the controller")
	data := readData(t, got).secret

	first := requireTokenExpiration(t, token)
	require.WithinDuration(t, time.Now().Add(testTokenTTL), first, 5*time.Second)
	second := waitExpirationPushedOut(t, token, first)
	waitExpirationPushedOut(t, token, second)

	cur := getConfig(t, cfg)
	require.Equal(t, token, tokenOf(cur), "a refresh keeps the token")
	require.Equal(t, data.ResourceVersion, readData(t, cur).secret.ResourceVersion, "a refresh does not touch the bootstrap data")

	// Once joined, the token is left to expire. A refresh that was under way when the nodeRef
	// was written may still push the expiration out once; the wait is for the expiration that
	// is current when it passes.
	setNodeRef(t, m)
	envtest.WaitFor(t, 2*testTokenTTL+5*time.Second, "token "+token[:6]+" to expire", func() (bool, error) {
		e, err := tokenExpiration(token)
		return err == nil && time.Now().After(e), err
	})
	require.Equal(t, token, tokenOf(getConfig(t, cfg)), "a joined Machine's token is not replaced")
}

func TestBootstrapToken_RecreatedWhenItsSecretIsGoneBeforeTheMachineJoins(t *testing.T) {
	startController(t, withTokenTTL(testTokenTTL))
	f := newJoinableFixture(t)
	_, cfg := f.newMachine(t, "worker-0", false)
	got := waitDataSecret(t, cfg)
	old := tokenOf(got)
	before := readData(t, got)
	require.Equal(t, old, joinConfiguration(t, before).Discovery.BootstrapToken.Token)

	s, err := tokenSecret(old)
	require.NoError(t, err)
	require.NoError(t, env.Client.Delete(context.Background(), s))

	// Noticed by the check every TTL/3, not by a watch.
	cur := waitTokenReplaced(t, cfg, old, testTokenTTL)
	token := tokenOf(cur)
	require.Equal(t, token[:6], cur.Annotations[bootstrapv1.ManagedBootstrapTokenAnnotation])
	require.WithinDuration(t, time.Now().Add(testTokenTTL), requireTokenExpiration(t, token), 5*time.Second)
	requireDataRenderedWith(t, cur, before, token)
}

// requireDataRenderedWith waits for the data Secret to carry token, and checks it is the same
// Secret as before, with new content.
func requireDataRenderedWith(t *testing.T, cfg *bootstrapv1.KubeadmConfig, before nodeData, token string) {
	t.Helper()
	var after nodeData
	envtest.WaitFor(t, timeout, "the bootstrap data to carry token "+token[:6], func() (bool, error) {
		cur := getConfig(t, cfg)
		after = readData(t, cur)
		return joinConfiguration(t, after).Discovery.BootstrapToken.Token == token, nil
	})
	require.Equal(t, before.secret.Name, after.secret.Name)
	require.Equal(t, before.secret.UID, after.secret.UID, "the data Secret is updated in place, not re-created")
	require.NotEqual(t, string(before.secret.Data["value"]), string(after.secret.Data["value"]))
	cur := getConfig(t, cfg)
	require.Equal(t, before.secret.Name, cur.Status.DataSecretName)
	require.True(t, conditions.IsTrue(cur, clusterv1.ReadyCondition), "Ready is %+v", conditions.Get(cur, clusterv1.ReadyCondition))
}

// TestMachinePool_ScaledUpLongAfterCreationStillJoins is upstream issue #3965: a MachinePool's
// instances boot from one data Secret for the pool's whole life, so its token must stay usable
// long after the pool was created. Until the pool's infrastructure is provisioned the token's
// expiration is pushed out; from then on the token is rotated by itself before it expires, the
// data Secret keeping its name, and the old token is left to expire.
func TestMachinePool_ScaledUpLongAfterCreationStillJoins(t *testing.T) {
	startController(t, withTokenTTL(testTokenTTL))
	f := newJoinableFixture(t)
	mp, cfg := f.newMachinePool(t, "pool-0")
	got := waitDataSecret(t, cfg)
	require.Equal(t, "pool-0", got.Status.DataSecretName)
	old := tokenOf(got)
	before := readData(t, got)
	join := joinConfiguration(t, before)
	require.Nil(t, join.ControlPlane, "a MachinePool's instances join as workers")
	require.Equal(t, old, join.Discovery.BootstrapToken.Token)
	require.Contains(t, strings.Join(before.runcmd, "\n"), "kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml")

	// Infrastructure not provisioned yet: refreshed like a Machine's.
	waitExpirationPushedOut(t, old, requireTokenExpiration(t, old))
	require.Equal(t, old, tokenOf(getConfig(t, cfg)))

	envtest.UpdateStatus(t, env.Client, mp, func() { mp.Status.Initialization.InfrastructureProvisioned = ptr.To(true) })
	oldExpiration := requireTokenExpiration(t, old)
	cur := waitTokenReplaced(t, cfg, old, 2*testTokenTTL)
	token := tokenOf(cur)
	require.Equal(t, token[:6], cur.Annotations[bootstrapv1.ManagedBootstrapTokenAnnotation])
	requireDataRenderedWith(t, cur, before, token)

	require.WithinDuration(t, time.Now().Add(testTokenTTL), requireTokenExpiration(t, token), 5*time.Second)
	e, err := tokenExpiration(old)
	require.NoError(t, err, "the old token Secret is left to expire, not deleted")
	require.Equal(t, oldExpiration, e, "the old token is no longer refreshed")
}

func TestPlanToken(t *testing.T) {
	now := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	const ttl = 15 * time.Minute
	machine := configOwner{machine: &clusterv1.Machine{}}
	pool := configOwner{pool: &clusterv1.MachinePool{}}
	provisionedPool := configOwner{pool: &clusterv1.MachinePool{Status: clusterv1.MachinePoolStatus{
		Initialization: clusterv1.MachinePoolInitializationStatus{InfrastructureProvisioned: ptr.To(true)}}}}
	expiring := func(in time.Duration) *corev1.Secret {
		return &corev1.Secret{Data: map[string][]byte{"expiration": []byte(now.Add(in).Format(time.RFC3339))}}
	}
	for _, tc := range []struct {
		name   string
		owner  configOwner
		secret *corev1.Secret
		want   tokenAction
	}{
		{"fresh Machine token", machine, expiring(ttl), tokenKeep},
		{"Machine token with exactly TTL/2 left", machine, expiring(ttl / 2), tokenKeep},
		{"Machine token with less than TTL/2 left", machine, expiring(ttl/2 - time.Second), tokenRefresh},
		{"expired Machine token", machine, expiring(-time.Minute), tokenRefresh},
		{"Machine token Secret gone", machine, nil, tokenReplace},
		{"unreadable expiration", machine, &corev1.Secret{Data: map[string][]byte{"expiration": []byte("soon")}}, tokenRefresh},
		{"no expiration", machine, &corev1.Secret{Data: map[string][]byte{}}, tokenKeep},
		{"pool before its infrastructure, less than TTL/2 left", pool, expiring(ttl / 3), tokenRefresh},
		{"pool before its infrastructure, Secret gone", pool, nil, tokenReplace},
		{"provisioned pool, fresh token", provisionedPool, expiring(ttl), tokenKeep},
		{"provisioned pool, less than TTL/2 left", provisionedPool, expiring(ttl / 3), tokenReplace},
		{"provisioned pool, Secret gone", provisionedPool, nil, tokenReplace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := planToken(tc.owner, tc.secret, now, ttl)
			require.Equal(t, tc.want, got)
			require.Equal(t, got == tokenKeep, why == "", "a decision to act says why: %q", why)
		})
	}
}

func TestConfigOwner_MachinePoolsAreWorkersWhoseTokenIsNeverConsumed(t *testing.T) {
	joined := configOwner{machine: &clusterv1.Machine{Status: clusterv1.MachineStatus{NodeRef: clusterv1.MachineNodeReference{Name: "n"}}}}
	require.True(t, joined.tokenConsumed())
	cp := configOwner{machine: &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{clusterv1.MachineControlPlaneLabel: ""}}}}
	require.True(t, cp.isControlPlane())
	pool := configOwner{pool: &clusterv1.MachinePool{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{clusterv1.MachineControlPlaneLabel: ""}}}}
	require.False(t, pool.isControlPlane(), "a MachinePool never initializes nor joins the control plane")
	require.False(t, pool.tokenConsumed())
}
