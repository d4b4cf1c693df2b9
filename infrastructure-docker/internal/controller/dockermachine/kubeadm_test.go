package dockermachine

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/secret"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
	"capstan.dev/infrastructure-docker/internal/node/nodetest"
)

const kubernetesVersion = "v1.37.2"

// hostSysctls are host settings the kubelet wants to change and that are not namespaced: a
// node must leave them as it found them.
var hostSysctls = []string{"vm/overcommit_memory", "kernel/panic", "kernel/panic_on_oops", "net/ipv4/conf/all/route_localnet"}

func readHostSysctls(t *testing.T) map[string]string {
	t.Helper()
	values := map[string]string{}
	for _, key := range hostSysctls {
		b, err := os.ReadFile("/proc/sys/" + key)
		require.NoError(t, err)
		values[key] = strings.TrimSpace(string(b))
	}
	return values
}

// buildNodeImage runs the node image build, which is cached by input hash (seconds when
// nothing changed). CAPSTAN_IMAGES_BUILD=0 skips it; dockerFor then skips the test when the
// image is absent.
func buildNodeImage(t *testing.T) {
	t.Helper()
	if os.Getenv("CAPSTAN_IMAGES_BUILD") == "0" {
		return
	}
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			break
		}
		require.NotEqual(t, dir, filepath.Dir(dir), "no go.work above the test's directory")
		dir = filepath.Dir(dir)
	}
	start := time.Now()
	cmd := exec.Command("bash", filepath.Join(dir, "hack", "images", "node-image.sh"), kubernetesVersion)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Run(), "hack/images/node-image.sh %s:\n%s", kubernetesVersion, out.String())
	t.Logf("timing: node image build (cached when unchanged): %s", time.Since(start).Round(100*time.Millisecond))
}

// kubeadmInitData is the bootstrap data of a first control-plane node as the kubeadm bootstrap
// provider renders it (its golden files: a #cloud-config with the kubeadm documents in
// /run/kubeadm/kubeadm.yaml and runcmd "kubeadm init ... && echo success > <sentinel>"), and
// without the kubelet settings: the provider adds those. kube-proxy's conntrack sizing is off,
// as on every node container (it would write the host's conntrack table size).
func kubeadmInitData(clusterName, nodeName string, endpointPort int) string {
	return fmt.Sprintf(`#cloud-config
write_files:
- path: /run/kubeadm/kubeadm.yaml
  owner: root:root
  permissions: "0640"
  content: |
    ---
    apiServer:
      certSANs:
      - localhost
      - 127.0.0.1
    apiVersion: kubeadm.k8s.io/v1beta4
    certificatesDir: /etc/kubernetes/pki
    clusterName: %[1]s
    controlPlaneEndpoint: 127.0.0.1:%[3]d
    kind: ClusterConfiguration
    kubernetesVersion: %[4]s
    networking:
      dnsDomain: cluster.local
      podSubnet: 10.244.0.0/16
      serviceSubnet: 10.96.0.0/12
    ---
    apiVersion: kubeadm.k8s.io/v1beta4
    kind: InitConfiguration
    nodeRegistration:
      criSocket: unix:///var/run/containerd/containerd.sock
      imagePullPolicy: Never
      name: %[2]s
    ---
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    conntrack:
      maxPerCore: 0
- path: /run/cluster-api/placeholder
  owner: root:root
  permissions: "0640"
  content: |
    Written so that /run/cluster-api exists before kubeadm runs.
runcmd:
- kubeadm init --config /run/kubeadm/kubeadm.yaml && echo success > /run/cluster-api/bootstrap-success.complete
`, clusterName, nodeName, endpointPort, kubernetesVersion)
}

func TestDockerMachine_KubeadmInitThroughTheProviderServesReadyzThroughTheLoadBalancer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kubeadm init in a node container: minutes")
	}
	before := readHostSysctls(t)
	// Registered before the plane's removal, so it runs after it (cleanups run last first).
	t.Cleanup(func() {
		require.Equal(t, before, readHostSysctls(t), "host sysctls after the node container was removed")
	})
	buildNodeImage(t)
	rt := dockerFor(t, "capstan/node:"+kubernetesVersion)
	startManager(t, rt, managerOptions{withDockerCluster: true})
	ctx := context.Background()
	ns := env.CreateNamespace(t, "dm")
	clusterName := "kinit"

	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: clusterName, Labels: map[string]string{clusterv1.WatchLabel: rt.Plane()}},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "DockerCluster", Name: clusterName,
		}},
	}
	require.NoError(t, env.Client.Create(ctx, cluster))
	endpoint := provisionLoadBalancer(t, rt, cluster).Spec.ControlPlaneEndpoint
	require.Equal(t, "127.0.0.1", endpoint.Host)
	f := &fixture{&nodetest.Fixture{Env: env, RT: rt, NS: ns, Cluster: cluster}}
	f.SetInfrastructureProvisioned(t)

	nodeName := rt.Plane()[len(rt.Plane())-8:] + "-cp0"
	machine, dm := f.newMachine(t, "cp0", kubeadmInitData(clusterName, nodeName, int(endpoint.Port)),
		machineOptions{controlPlane: true, nodeImage: true})
	require.Equal(t, nodeName, machine.Name)

	start := time.Now()
	waitCondition(t, dm, 5*time.Minute, infrav1.DockerMachineBootstrapExecSucceededCondition, metav1.ConditionTrue, infrav1.DockerMachineBootstrapExecSucceededReason, "")
	t.Logf("timing: DockerMachine created to bootstrap succeeded: %s", time.Since(start).Round(100*time.Millisecond))
	require.Equal(t, before, readHostSysctls(t), "host sysctls after kubeadm init")

	// The management side reaches the API server through the load balancer's published port.
	httpClient := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // readyz is public; only whether it answers matters
	readyz := "https://" + endpoint.Host + ":" + strconv.Itoa(int(endpoint.Port)) + "/readyz"
	envtest.WaitFor(t, 2*time.Minute, "the API server answers "+readyz, func() (bool, error) {
		resp, err := httpClient.Get(readyz)
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || string(body) != "ok" {
			return false, fmt.Errorf("%s: %s", resp.Status, body)
		}
		return true, nil
	})
	t.Logf("timing: DockerMachine created to /readyz ok through the load balancer: %s", time.Since(start).Round(100*time.Millisecond))

	c := nodeContainers(t, rt, dm)[0]
	flags := execOut(t, rt, &c, "cat", "/var/lib/kubelet/kubeadm-flags.env")
	for _, want := range []string{"--cgroup-driver=cgroupfs", "--fail-cgroupv1=false", "--resolv-conf=/etc/capstan/pod-resolv.conf"} {
		require.Contains(t, flags, want, "kubelet flags the provider added")
	}

	// The workload kubeconfig (kubeadm's admin.conf: its server is the same 127.0.0.1 endpoint)
	// lets the controller set the Node's providerID.
	adminConf := execOut(t, rt, &c, "cat", "/etc/kubernetes/admin.conf")
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: secret.Name(clusterName, secret.Kubeconfig), Labels: map[string]string{clusterv1.ClusterNameLabel: clusterName}},
		Type:       clusterv1.ClusterSecretType, Data: map[string][]byte{secret.KubeconfigDataName: []byte(adminConf)},
	}))
	got := waitCondition(t, dm, 2*time.Minute, infrav1.DockerMachineReadyCondition, metav1.ConditionTrue, infrav1.DockerMachineReadyReason, "")
	require.Equal(t, ptr.To(true), got.Status.Initialization.Provisioned)
	restConfig, err := clientcmd.RESTConfigFromKubeConfig([]byte(adminConf))
	require.NoError(t, err)
	workload, err := client.New(restConfig, client.Options{})
	require.NoError(t, err)
	node := &corev1.Node{}
	require.NoError(t, workload.Get(ctx, client.ObjectKey{Name: nodeName}, node))
	require.Equal(t, "docker:////"+nodeName, node.Spec.ProviderID)
	require.Equal(t, before, readHostSysctls(t), "host sysctls with the node running")

	require.NoError(t, env.Client.Delete(ctx, dm))
	waitGone(t, dm)
	require.Empty(t, nodeContainers(t, rt, dm))
}
