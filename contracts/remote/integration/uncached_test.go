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
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/remote"
)

// TestClusterCache_CachedClientReadsSecretsConfigMapsAndPodsLive connects as a user who may
// get Secrets, ConfigMaps and Pods but not list or watch them. A cache could never fill for
// those kinds, so a Get through the cached client that succeeds at once went to the API server.
func TestClusterCache_CachedClientReadsSecretsConfigMapsAndPodsLive(t *testing.T) {
	ns := env.CreateNamespace(t, "live")
	ctx := context.Background()
	user := "get-only-" + rand.String(5)
	grant(t, user, []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"secrets", "configmaps", "pods"}, Verbs: []string{"get"}},
		{NonResourceURLs: []string{"/"}, Verbs: []string{"get"}},
	})
	userConfig, err := env.AddUser(user)
	require.NoError(t, err)

	objs := []client.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "s"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cm"}},
		&corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "pause"}}},
		},
	}
	for _, o := range objs {
		require.NoError(t, env.Client.Create(ctx, o))
	}

	tm := startManager(t, remote.Options{}, nil)
	cluster := createCluster(t, ns)
	putKubeconfig(t, cluster, kubeconfigFor(t, userConfig))
	c := waitConnected(t, tm.cc, cluster)

	for _, o := range objs {
		read := o.DeepCopyObject().(client.Object)
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(o), read), "%T", o)
	}
	// Nodes, in contrast, come from the cache the user may fill.
	require.NoError(t, c.List(ctx, &corev1.NodeList{}))
}

// grant binds a new ClusterRole with rules to user, for the length of the test.
func grant(t *testing.T, user string, rules []rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: rules}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	for _, o := range []client.Object{role, binding} {
		require.NoError(t, env.Client.Create(ctx, o))
		t.Cleanup(func() { _ = env.Client.Delete(ctx, o) })
	}
}

// kubeconfigFor renders a client-certificate REST config as a kubeconfig.
func kubeconfigFor(t *testing.T, cfg *rest.Config) []byte {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["workload"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["user"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["user@workload"] = &clientcmdapi.Context{Cluster: "workload", AuthInfo: "user"}
	kc.CurrentContext = "user@workload"
	data, err := clientcmd.Write(*kc)
	require.NoError(t, err)
	return data
}
