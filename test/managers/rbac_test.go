package managers

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
)

// TestCoreManager_RunsOnItsGeneratedRBACAlone runs the core manager as a user that
// holds only the ClusterRole generated from the controllers' RBAC markers and the
// leader-election Role of config/rbac: if a controller needs a permission the
// markers do not grant, the reconcile fails and the objects never progress.
func TestCoreManager_RunsOnItsGeneratedRBACAlone(t *testing.T) {
	ctx := context.Background()
	p := providers[0]
	ensureNamespace(t, p.namespace)
	const user = "capstan-core-manager"
	applyRBAC(t, "../../core/config/rbac", p.namespace, user)
	cfg, err := env.AddUser(user)
	require.NoError(t, err)
	kubeconfig := writeKubeconfig(t, cfg)

	mp := startManager(t, buildManager(t, p), kubeconfig)
	envtest.WaitFor(t, 60*time.Second, "the core manager to lead", func() (bool, error) {
		h, err := holder(p)
		return h != "", err
	})

	ns := env.CreateNamespace(t, "rbac")
	infra := crds.New(crds.GenericInfrastructureMachineGVK, ns, "m1")
	require.NoError(t, env.Client.Create(ctx, infra))
	infraCluster := crds.New(crds.GenericInfrastructureClusterGVK, ns, "c1")
	require.NoError(t, env.Client.Create(ctx, infraCluster))
	require.NoError(t, unstructured.SetNestedField(infraCluster.Object, true, "status", "initialization", "provisioned"))
	require.NoError(t, env.Client.Status().Update(ctx, infraCluster))
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: ns},
		Spec: clusterv1.ClusterSpec{ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: "10.0.0.1", Port: 6443},
			InfrastructureRef: crds.Ref(crds.GenericInfrastructureClusterGVK, "c1")}}
	require.NoError(t, env.Client.Create(ctx, cluster))
	machine := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: "m1", Namespace: ns},
		Spec: clusterv1.MachineSpec{ClusterName: "c1", Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To("data")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: crds.GenericInfrastructureMachineGVK.Group,
				Kind: crds.GenericInfrastructureMachineGVK.Kind, Name: "m1"}}}
	require.NoError(t, env.Client.Create(ctx, machine))

	envtest.WaitFor(t, 60*time.Second, "the Cluster to be reconciled", func() (bool, error) {
		got := &clusterv1.Cluster{}
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(cluster), got)
		return err == nil && len(got.Finalizers) == 1 && conditions.IsTrue(got, clusterv1.ClusterInfrastructureReadyCondition), err
	})
	envtest.WaitFor(t, 60*time.Second, "the Machine to adopt its infrastructure", func() (bool, error) {
		cur := infra.DeepCopy()
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(infra), cur)
		return err == nil && len(cur.GetOwnerReferences()) == 1, err
	})
	require.NoError(t, mp.stop(t))
	requireNoRBACDenial(t, mp.logPath)
}

// applyRBAC creates the ClusterRole(s) and Roles in dir (kustomize's namespace
// "system" becomes ns) and binds them to user instead of the ServiceAccount.
func applyRBAC(t *testing.T, dir, ns, user string) {
	t.Helper()
	ctx := context.Background()
	files, err := filepath.Glob(filepath.Join(dir, "*role.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	subject := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
				break
			} else {
				require.NoError(t, err)
			}
			if u.Object == nil {
				continue
			}
			name := user + "-" + u.GetName()
			u.SetName(name)
			switch u.GetKind() {
			case "ClusterRole":
				require.NoError(t, env.Client.Create(ctx, u))
				require.NoError(t, env.Client.Create(ctx, &rbacv1.ClusterRoleBinding{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
					Subjects:   subject,
				}))
			case "Role":
				u.SetNamespace(ns)
				require.NoError(t, env.Client.Create(ctx, u))
				require.NoError(t, env.Client.Create(ctx, &rbacv1.RoleBinding{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
					Subjects:   subject,
				}))
			}
		}
	}
}

// writeKubeconfig turns a client-certificate rest.Config into a kubeconfig file.
func writeKubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["user"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "user"}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return path
}

// requireNoRBACDenial fails when the manager's log shows the API server refusing it
// for lack of a permission ("... is forbidden: User "<name>" cannot <verb> resource
// ..."). Other "forbidden" errors, such as writing into a namespace being deleted by
// another test, are not about RBAC.
func requireNoRBACDenial(t *testing.T, logPath string) {
	t.Helper()
	log, err := os.ReadFile(logPath)
	require.NoError(t, err)
	for _, line := range strings.Split(string(log), "\n") {
		require.NotRegexp(t, `is forbidden: User \\?"[^"\\]+\\?" cannot`, line, "the manager hit a permission it does not have")
	}
}
