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
	"crypto/ecdsa"
	"crypto/elliptic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/kubeadm"
)

// cloudConfig is the part of the bootstrap data the tests below read besides the files.
type cloudConfig struct {
	BootCmd   []string                  `json:"bootcmd"`
	DiskSetup map[string]map[string]any `json:"disk_setup"`
	FSSetup   []map[string]any          `json:"fs_setup"`
	Mounts    [][]string                `json:"mounts"`
	Users     []map[string]any          `json:"users"`
}

func readCloudConfig(t *testing.T, d nodeData) cloudConfig {
	t.Helper()
	var doc cloudConfig
	require.NoError(t, yaml.Unmarshal(d.secret.Data["value"], &doc))
	return doc
}

// TestData_CarriesBootCommandsDisksMountsAndUsersWithTheirPasswordSecret: the cloud-init modules
// reach the bootstrap data, a password from a Secret is waited for and then written.
func TestData_CarriesBootCommandsDisksMountsAndUsersWithTheirPasswordSecret(t *testing.T) {
	startController(t)
	f := newFixture(t)
	_, cfg := f.newMachine(t, "cp-0", true, func(c *bootstrapv1.KubeadmConfig) {
		c.Spec.BootCommands = []string{"echo boot"}
		c.Spec.DiskSetup = bootstrapv1.DiskSetup{
			Partitions: []bootstrapv1.Partition{
				{Device: "/dev/sdb", Layout: ptr.To(true), TableType: "gpt"},
				{Device: "/dev/sdc", DiskLayout: []bootstrapv1.PartitionSpec{{Percentage: 70, PartitionType: bootstrapv1.PartitionTypeLinuxSwap}, {Percentage: 30}}},
			},
			Filesystems: []bootstrapv1.Filesystem{{Device: "/dev/sdb1", Filesystem: "ext4", Label: "etcd_disk"}},
		}
		c.Spec.Mounts = []bootstrapv1.MountPoints{{"LABEL=etcd_disk", "/var/lib/etcddisk"}}
		c.Spec.Users = []bootstrapv1.User{{Name: "ops", Gecos: "Operations", PrimaryGroup: "ops", Inactive: ptr.To(true),
			PasswdFrom: bootstrapv1.PasswdSource{Secret: bootstrapv1.SecretPasswdSource{Name: "passwords", Key: "ops"}}}}
	})
	waitWaiting(t, cfg, "Waiting for Secret passwords, the password of user ops")
	require.NoError(t, env.Client.Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "passwords", Namespace: f.ns},
		Data:       map[string][]byte{"ops": []byte("$6$salt$hash")},
	}))
	doc := readCloudConfig(t, readData(t, waitDataSecret(t, cfg)))
	require.Equal(t, []string{"echo boot"}, doc.BootCmd)
	require.Equal(t, map[string]map[string]any{
		"/dev/sdb": {"layout": true, "table_type": "gpt"},
		"/dev/sdc": {"layout": []any{[]any{float64(70), "82"}, float64(30)}},
	}, doc.DiskSetup)
	require.Equal(t, []map[string]any{{"device": "/dev/sdb1", "filesystem": "ext4", "label": "etcd_disk"}}, doc.FSSetup)
	require.Equal(t, [][]string{{"LABEL=etcd_disk", "/var/lib/etcddisk"}}, doc.Mounts)
	require.Equal(t, []map[string]any{{"name": "ops", "gecos": "Operations", "primary_group": "ops", "inactive": true, "passwd": "$6$salt$hash"}}, doc.Users)
}

// TestFileDiscovery_GeneratesTheKubeconfigAndCreatesNoToken: with discovery.file.kubeConfig the
// worker gets a kubeconfig for the Cluster's endpoint and CA with the user's exec plugin, its
// kubeadm file names it, and no bootstrap token is created or written into the spec.
func TestFileDiscovery_GeneratesTheKubeconfigAndCreatesNoToken(t *testing.T) {
	startController(t)
	f := newFixture(t)
	f.generateCertificates(t)
	f.initializeControlPlane(t)
	_, cfg := f.newMachine(t, "worker-0", false, func(c *bootstrapv1.KubeadmConfig) {
		c.Spec.JoinConfiguration.Discovery = bootstrapv1.Discovery{
			File: bootstrapv1.FileDiscovery{KubeConfigPath: "/etc/kubernetes/discovery.conf", KubeConfig: bootstrapv1.FileDiscoveryKubeConfig{
				User: bootstrapv1.KubeConfigUser{Exec: bootstrapv1.KubeConfigAuthExec{Command: "/usr/local/bin/token", Args: []string{"--node"}}},
			}},
			TLSBootstrapToken: "abcdef.0123456789abcdef",
		}
	})
	got := waitDataSecret(t, cfg)
	require.Empty(t, got.Spec.JoinConfiguration.Discovery.BootstrapToken, "file discovery needs no bootstrap token")
	require.NotContains(t, got.Annotations, bootstrapv1.ManagedBootstrapTokenAnnotation)

	d := readData(t, got)
	join := joinConfiguration(t, d)
	require.Equal(t, kubeadm.Discovery{
		File: &kubeadm.FileDiscovery{KubeConfigPath: "/etc/kubernetes/discovery.conf"}, TLSBootstrapToken: "abcdef.0123456789abcdef",
	}, join.Discovery)
	kubeconfig, err := clientcmd.Load([]byte(d.files["/etc/kubernetes/discovery.conf"]))
	require.NoError(t, err)
	cluster := kubeconfig.Clusters[kubeconfig.Contexts[kubeconfig.CurrentContext].Cluster]
	require.Equal(t, "https://10.0.0.1:6443", cluster.Server)
	require.Equal(t, f.secret(t, "c1-ca").Data["tls.crt"], cluster.CertificateAuthorityData)
	user := kubeconfig.AuthInfos[kubeconfig.Contexts[kubeconfig.CurrentContext].AuthInfo]
	require.Equal(t, "/usr/local/bin/token", user.Exec.Command)
	require.Equal(t, []string{"--node"}, user.Exec.Args)
	require.Equal(t, "client.authentication.k8s.io/v1", user.Exec.APIVersion)
}

// TestExternalEtcd_ControlPlaneWaitsForTheUsersSecretsAndWritesThemWhereConfigured: no etcd CA
// is generated; the node gets the user's etcd CA certificate and client pair at the configured
// paths, and no stacked etcd CA files.
func TestExternalEtcd_ControlPlaneWaitsForTheUsersSecretsAndWritesThemWhereConfigured(t *testing.T) {
	startController(t)
	f := newFixture(t)
	_, cfg := f.newMachine(t, "cp-0", true, func(c *bootstrapv1.KubeadmConfig) {
		c.Spec.ClusterConfiguration.Etcd.External = bootstrapv1.ExternalEtcd{
			Endpoints: []string{"https://10.0.0.5:2379"}, CAFile: "/etc/etcd/ca.pem", CertFile: "/etc/etcd/client.pem", KeyFile: "/etc/etcd/client-key.pem",
		}
	})
	waitWaiting(t, cfg, "with clusterConfiguration.etcd.external, create Secret c1-etcd with the etcd CA certificate (tls.crt) and Secret c1-apiserver-etcd-client")
	for name, data := range map[string]map[string][]byte{
		"c1-etcd":                  {"tls.crt": []byte("etcd-ca")},
		"c1-apiserver-etcd-client": {"tls.crt": []byte("client-crt"), "tls.key": []byte("client-key")},
	} {
		require.NoError(t, env.Client.Create(context.Background(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns}, Data: data}))
	}
	d := readData(t, waitDataSecret(t, cfg))
	require.Equal(t, "etcd-ca", d.files["/etc/etcd/ca.pem"])
	require.Equal(t, "client-crt", d.files["/etc/etcd/client.pem"])
	require.Equal(t, "client-key", d.files["/etc/etcd/client-key.pem"])
	require.NotContains(t, d.files, "/etc/kubernetes/pki/etcd/ca.crt")
	require.NotContains(t, d.files, "/etc/kubernetes/pki/etcd/ca.key")
	require.Equal(t, "etcd-ca", string(f.secret(t, "c1-etcd").Data["tls.crt"]), "the user's etcd CA is not replaced")
	require.Empty(t, f.secret(t, "c1-etcd").Data["tls.key"])
}

// TestInit_CAsFollowEncryptionAlgorithmAndValidity: the CAs generated for a new cluster have
// the configured key type and validity.
func TestInit_CAsFollowEncryptionAlgorithmAndValidity(t *testing.T) {
	startController(t)
	f := newFixture(t)
	_, cfg := f.newMachine(t, "cp-0", true, func(c *bootstrapv1.KubeadmConfig) {
		c.Spec.ClusterConfiguration.EncryptionAlgorithm = bootstrapv1.EncryptionAlgorithmECDSAP256
		c.Spec.ClusterConfiguration.CACertificateValidityPeriodDays = 730
	})
	waitDataSecret(t, cfg)
	for _, name := range []string{"c1-ca", "c1-etcd", "c1-proxy", "c1-sa"} {
		s := f.secret(t, name)
		key, err := keyutil.ParsePrivateKeyPEM(s.Data["tls.key"])
		require.NoError(t, err)
		require.Equal(t, elliptic.P256(), key.(*ecdsa.PrivateKey).Curve, "Secret %s", name)
		if name == "c1-sa" {
			continue
		}
		ca, err := cert.ParseCertsPEM(s.Data["tls.crt"])
		require.NoError(t, err)
		require.WithinDuration(t, time.Now().Add(730*24*time.Hour), ca[0].NotAfter, time.Hour, "Secret %s", name)
	}
}
