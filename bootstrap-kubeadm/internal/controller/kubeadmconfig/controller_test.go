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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/certs"
	"capstan.dev/bootstrap-kubeadm/internal/cloudinit"
	"capstan.dev/bootstrap-kubeadm/internal/kubeadm"
	"capstan.dev/bootstrap-kubeadm/internal/locking"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/events"
	"capstan.dev/contracts/owner"
	"capstan.dev/contracts/secret"
)

// pkiFiles are the certificate files of a control plane node and the Secret key they come from.
var pkiFiles = map[string]struct{ secret, key string }{
	"/etc/kubernetes/pki/ca.crt":             {"c1-ca", "tls.crt"},
	"/etc/kubernetes/pki/ca.key":             {"c1-ca", "tls.key"},
	"/etc/kubernetes/pki/etcd/ca.crt":        {"c1-etcd", "tls.crt"},
	"/etc/kubernetes/pki/etcd/ca.key":        {"c1-etcd", "tls.key"},
	"/etc/kubernetes/pki/front-proxy-ca.crt": {"c1-proxy", "tls.crt"},
	"/etc/kubernetes/pki/front-proxy-ca.key": {"c1-proxy", "tls.key"},
	"/etc/kubernetes/pki/sa.pub":             {"c1-sa", "tls.crt"},
	"/etc/kubernetes/pki/sa.key":             {"c1-sa", "tls.key"},
}

// requireClusterCertificates checks that the node gets exactly the stored certificates.
func (f *fixture) requireClusterCertificates(t *testing.T, d nodeData) {
	t.Helper()
	for path, from := range pkiFiles {
		s := f.secret(t, from.secret)
		require.Equal(t, clusterv1.ClusterSecretType, s.Type)
		require.Equal(t, "c1", s.Labels[clusterv1.ClusterNameLabel])
		require.Equal(t, []metav1.OwnerReference{owner.ClusterReference(f.cluster)}, s.OwnerReferences)
		require.Equal(t, string(s.Data[from.key]), d.files[path], "file %s comes from Secret %s", path, from.secret)
	}
}

func joinConfiguration(t *testing.T, d nodeData) kubeadm.JoinConfiguration {
	t.Helper()
	raw, ok := d.files[cloudinit.KubeadmJoinConfigPath]
	require.True(t, ok, "the data writes %s", cloudinit.KubeadmJoinConfigPath)
	var join kubeadm.JoinConfiguration
	require.NoError(t, yaml.UnmarshalStrict([]byte(strings.TrimPrefix(raw, "---\n")), &join))
	return join
}

func lockHolder(t *testing.T, f *fixture) (string, bool) {
	t.Helper()
	cm := &corev1.ConfigMap{}
	err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: locking.Name("c1")}, cm)
	if apierrors.IsNotFound(err) {
		return "", false
	}
	require.NoError(t, err)
	return cm.Data[locking.InformationKey], true
}

func TestInit_FirstControlPlaneMachineGetsInitDataWithTheCertificatesAndTheLock(t *testing.T) {
	startController(t)
	f := newFixture(t)
	_, cfg := f.newMachine(t, "cp-0", true)

	got := waitDataSecret(t, cfg)
	require.Equal(t, "cp-0", got.Status.DataSecretName)
	for _, ct := range []string{clusterv1.ReadyCondition, bootstrapv1.KubeadmConfigDataSecretAvailableCondition, bootstrapv1.KubeadmConfigCertificatesAvailableCondition} {
		require.True(t, conditions.IsTrue(got, ct), "%s is %+v", ct, conditions.Get(got, ct))
	}
	require.Equal(t, got.Generation, got.Status.ObservedGeneration)

	d := readData(t, got)
	require.Equal(t, clusterv1.ClusterSecretType, d.secret.Type)
	require.Equal(t, "c1", d.secret.Labels[clusterv1.ClusterNameLabel])
	require.Equal(t, []metav1.OwnerReference{{APIVersion: bootstrapv1.GroupVersion.String(), Kind: "KubeadmConfig", Name: "cp-0", UID: got.UID, Controller: ptr.To(true)}},
		d.secret.OwnerReferences)
	require.Equal(t, []string{"format", "value"}, keys(d.secret.Data))
	require.Equal(t, "cloud-config", string(d.secret.Data["format"]))

	require.Contains(t, d.files, cloudinit.KubeadmInitConfigPath)
	init := d.files[cloudinit.KubeadmInitConfigPath]
	require.Contains(t, init, "kind: InitConfiguration")
	require.Contains(t, init, "controlPlaneEndpoint: 10.0.0.1:6443")
	require.Contains(t, init, "kubernetesVersion: v1.37.2")
	require.Contains(t, d.runcmd, "echo pre cp-0")
	require.Contains(t, strings.Join(d.runcmd, "\n"), "kubeadm init --config /run/kubeadm/kubeadm.yaml")
	f.requireClusterCertificates(t, d)

	holder, ok := lockHolder(t, f)
	require.True(t, ok)
	require.JSONEq(t, `{"machineName":"cp-0"}`, holder)
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	if len(out) == 2 && out[0] > out[1] {
		out[0], out[1] = out[1], out[0]
	}
	return out
}

// TestControlPlane_SecondMachineWaitsThenJoinsWithTheSameCertificatesAfterARestart also proves
// that the certificates are generated once: a second control plane Machine, reconciled by a
// restarted manager, gets the very Secrets the first one created, unchanged.
func TestControlPlane_SecondMachineWaitsThenJoinsWithTheSameCertificatesAfterARestart(t *testing.T) {
	stop := startController(t)
	f := newFixture(t)
	_, cp0 := f.newMachine(t, "cp-0", true)
	waitDataSecret(t, cp0)
	_, cp1 := f.newMachine(t, "cp-1", true)
	waitWaiting(t, cp1, "Waiting for Machine cp-0, which holds the init lock")

	versions := map[string]string{}
	for _, p := range secret.CertificatePurposes {
		versions[secret.Name("c1", p)] = f.secret(t, secret.Name("c1", p)).ResourceVersion
	}
	stop()
	startController(t)

	f.initializeControlPlane(t)
	got := waitDataSecret(t, cp1)
	require.True(t, conditions.IsTrue(got, clusterv1.ReadyCondition))
	d := readData(t, got)
	require.Contains(t, strings.Join(d.runcmd, "\n"), "kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml")
	f.requireClusterCertificates(t, d)
	join := joinConfiguration(t, d)
	require.NotNil(t, join.ControlPlane, "joins as a control plane node")
	require.Equal(t, "10.0.0.1:6443", join.Discovery.BootstrapToken.APIServerEndpoint)
	require.Equal(t, got.Spec.JoinConfiguration.Discovery.BootstrapToken.Token, join.Discovery.BootstrapToken.Token)

	for name, rv := range versions {
		require.Equal(t, rv, f.secret(t, name).ResourceVersion, "Secret %s is unchanged", name)
	}
	list := &corev1.SecretList{}
	require.NoError(t, env.Client.List(context.Background(), list, client.InNamespace(f.ns)))
	var names []string
	for _, s := range list.Items {
		names = append(names, s.Name)
	}
	require.ElementsMatch(t, []string{"c1-ca", "c1-etcd", "c1-proxy", "c1-sa", "c1-kubeconfig", "cp-0", "cp-1"}, names)

	waitLockReleased(t, f)
}

func TestWorker_JoinsWithATokenInTheWorkloadClusterAndTheCAPin(t *testing.T) {
	startController(t)
	f := newFixture(t)
	f.generateCertificates(t)
	_, cfg := f.newMachine(t, "worker-0", false)
	waitWaiting(t, cfg, "Waiting for the control plane of Cluster c1 to be initialized")

	f.initializeControlPlane(t)
	got := waitDataSecret(t, cfg)
	require.True(t, conditions.IsTrue(got, clusterv1.ReadyCondition))
	d := readData(t, got)
	for path := range pkiFiles {
		require.NotContains(t, d.files, path, "a worker gets no cluster keys")
	}
	join := joinConfiguration(t, d)
	require.Nil(t, join.ControlPlane)
	discovery := join.Discovery.BootstrapToken
	require.Equal(t, "10.0.0.1:6443", discovery.APIServerEndpoint)

	wantHash, err := certs.CACertHash(f.secret(t, "c1-ca").Data["tls.crt"])
	require.NoError(t, err)
	require.Equal(t, []string{wantHash}, discovery.CACertHashes)

	token := got.Spec.JoinConfiguration.Discovery.BootstrapToken.Token
	require.Regexp(t, `^[a-z0-9]{6}\.[a-z0-9]{16}$`, token)
	require.Equal(t, token, discovery.Token)
	id, secretPart, _ := strings.Cut(token, ".")
	ts := &corev1.Secret{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: "kube-system", Name: "bootstrap-token-" + id}, ts))
	require.Equal(t, corev1.SecretType("bootstrap.kubernetes.io/token"), ts.Type)
	require.Equal(t, id, string(ts.Data["token-id"]))
	require.Equal(t, secretPart, string(ts.Data["token-secret"]))
	require.Equal(t, "true", string(ts.Data["usage-bootstrap-signing"]))
	require.Equal(t, "true", string(ts.Data["usage-bootstrap-authentication"]))
	require.Equal(t, "system:bootstrappers:kubeadm:default-node-token", string(ts.Data["auth-extra-groups"]))
	expiration, err := time.Parse(time.RFC3339, string(ts.Data["expiration"]))
	require.NoError(t, err)
	require.WithinDuration(t, time.Now().Add(DefaultTokenTTL), expiration, 2*time.Minute)
}

func TestWorker_UsesTheTokenTheUserSupplied(t *testing.T) {
	startController(t)
	f := newFixture(t)
	f.initializeControlPlane(t)
	f.generateCertificates(t)
	const userToken = "abcdef.0123456789abcdef"
	_, cfg := f.newMachine(t, "worker-0", false, func(c *bootstrapv1.KubeadmConfig) {
		c.Spec.JoinConfiguration.Discovery.BootstrapToken.Token = userToken
	})
	got := waitDataSecret(t, cfg)
	require.Equal(t, userToken, joinConfiguration(t, readData(t, got)).Discovery.BootstrapToken.Token)
	err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: "kube-system", Name: "bootstrap-token-abcdef"}, &corev1.Secret{})
	require.True(t, apierrors.IsNotFound(err), "no token Secret is created for a user's token: %v", err)
}

func TestInitLock_IsReleasedWhenItsHolderMachineIsGone(t *testing.T) {
	startController(t)
	f := newFixture(t)
	m0, cp0 := f.newMachine(t, "cp-0", true)
	waitDataSecret(t, cp0)
	_, cp1 := f.newMachine(t, "cp-1", true)
	waitWaiting(t, cp1, "holds the init lock")

	require.NoError(t, env.Client.Delete(context.Background(), m0))
	got := waitDataSecret(t, cp1)
	require.Contains(t, readData(t, got).files, cloudinit.KubeadmInitConfigPath, "cp-1 now initializes the cluster")
	holder, ok := lockHolder(t, f)
	require.True(t, ok)
	require.JSONEq(t, `{"machineName":"cp-1"}`, holder)
}

func TestSteadyState_WritesNothing(t *testing.T) {
	f := newFixture(t)
	f.initializeControlPlane(t)
	f.generateCertificates(t)
	worker, cfg := f.newMachine(t, "worker-0", false)
	_, cp := f.newMachine(t, "cp-1", true)

	counter := &envtest.CallCounter{Key: client.ObjectKeyFromObject(cfg), Type: &bootstrapv1.KubeadmConfig{}}
	startController(t, func(o *controllerOptions) {
		o.wrap = counter.Wrap
		o.wrapRecorder = func(r events.Recorder) events.Recorder { return counter.WrapRecorder(r) }
	})
	waitDataSecret(t, cfg)
	waitDataSecret(t, cp)
	written := env.WaitForEvents(t, timeout, cfg, ReasonBootstrapDataWritten, 1)
	require.Equal(t, "Bootstrap data Secret "+cfg.Name+" created", written[0].Note)
	// worker-0 joins, so its token is left alone; cp-1 has not, so its token is checked in the
	// workload cluster, where it is far from expiring: neither is a reason to write.
	setNodeRef(t, worker)
	// The status is the last thing a reconcile writes: once both are seen, every write that
	// produced the data is done, and whatever follows must write nothing.
	// Poke the KubeadmConfig so it is reconciled again. The first poke only makes sure that a
	// reconcile which started before the last status write reached the cache has run.
	poke := func(i int) {
		gets, _ := counter.Snapshot()
		cur := getConfig(t, cfg)
		cur.Annotations = map[string]string{"test.capstan.dev/poke": fmt.Sprint(i)}
		require.NoError(t, env.Client.Update(context.Background(), cur))
		envtest.WaitFor(t, timeout, "another reconcile", func() (bool, error) {
			now, _ := counter.Snapshot()
			return now > gets, nil
		})
	}
	poke(0)
	_, writesBefore := counter.Snapshot()
	poke(1)
	poke(2)
	_, writesAfter := counter.Snapshot()
	require.Equal(t, writesBefore, writesAfter, "a steady KubeadmConfig is reconciled without writes (Events included)")
	require.Contains(t, writesBefore, "event "+ReasonBootstrapDataWritten+" *v1beta2.KubeadmConfig "+cfg.Name, "Events are counted")
}

func TestPaused_ClusterIsLeftAloneUntilUnpaused(t *testing.T) {
	startController(t)
	f := newFixture(t, func(c *clusterv1.Cluster) { c.Spec.Paused = ptr.To(true) })
	_, cfg := f.newMachine(t, "cp-0", true)
	got := waitConfig(t, cfg, "Paused", func(c *bootstrapv1.KubeadmConfig) error {
		if !conditions.IsTrue(c, clusterv1.PausedCondition) {
			return errorf("Paused is %+v", conditions.Get(c, clusterv1.PausedCondition))
		}
		return nil
	})
	require.Empty(t, got.Status.DataSecretName)
	require.Nil(t, conditions.Get(got, bootstrapv1.KubeadmConfigDataSecretAvailableCondition), "nothing but Paused is written")
	_, held := lockHolder(t, f)
	require.False(t, held, "a paused Cluster's lock is not taken")

	cur := f.cluster.DeepCopy()
	envtest.Update(t, env.Client, cur, func() { cur.Spec.Paused = ptr.To(false) })
	got = waitDataSecret(t, cfg)
	require.False(t, conditions.IsTrue(got, clusterv1.PausedCondition))
}

func TestWaits_SayWhatTheyWaitFor(t *testing.T) {
	startController(t)
	t.Run("no owner Machine", func(t *testing.T) {
		f := newFixture(t)
		cfg := &bootstrapv1.KubeadmConfig{
			ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: f.ns},
			Spec:       bootstrapv1.KubeadmConfigSpec{PreKubeadmCommands: []string{"true"}},
		}
		require.NoError(t, env.Client.Create(context.Background(), cfg))
		got := waitWaiting(t, cfg, "Waiting for a Machine or MachinePool to own this KubeadmConfig")
		require.False(t, conditions.IsTrue(got, clusterv1.ReadyCondition))
	})
	t.Run("infrastructure not provisioned", func(t *testing.T) {
		f := newFixture(t)
		f.setClusterStatus(t, func(s *clusterv1.ClusterStatus) { s.Initialization.InfrastructureProvisioned = nil })
		_, cfg := f.newMachine(t, "cp-0", true)
		waitWaiting(t, cfg, "status.initialization.infrastructureProvisioned")
	})
	t.Run("a file's Secret", func(t *testing.T) {
		f := newFixture(t)
		_, cfg := f.newMachine(t, "cp-0", true, func(c *bootstrapv1.KubeadmConfig) {
			c.Spec.Files = []bootstrapv1.File{{Path: "/etc/audit.yaml", ContentFrom: bootstrapv1.FileSource{
				Secret: bootstrapv1.SecretFileSource{Name: "audit", Key: "policy"}}}}
		})
		waitWaiting(t, cfg, "Waiting for Secret audit, the content of file /etc/audit.yaml")
		require.NoError(t, env.Client.Create(context.Background(), &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "audit", Namespace: f.ns},
			Data:       map[string][]byte{"policy": []byte("kind: Policy\n")},
		}))
		got := waitDataSecret(t, cfg)
		require.Equal(t, "kind: Policy\n", readData(t, got).files["/etc/audit.yaml"])
	})
}

func TestPaused_AnnotatedKubeadmConfigIsLeftAlone(t *testing.T) {
	startController(t)
	f := newFixture(t)
	_, cfg := f.newMachine(t, "cp-0", true, func(c *bootstrapv1.KubeadmConfig) {
		c.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
	})
	got := waitConfig(t, cfg, "Paused", func(c *bootstrapv1.KubeadmConfig) error {
		if !conditions.IsTrue(c, clusterv1.PausedCondition) {
			return errorf("Paused is %+v", conditions.Get(c, clusterv1.PausedCondition))
		}
		return nil
	})
	require.Contains(t, conditions.Get(got, clusterv1.PausedCondition).Message, "remove it to resume")
	require.Empty(t, got.Status.DataSecretName)
	_, held := lockHolder(t, f)
	require.False(t, held)
}
