package imagestest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
)

const (
	kubernetesVersion = "v1.37.2"
	nodeImage         = "capstan/node:" + kubernetesVersion
	// flannelImage is baked next to kubeadm's images; containerd names it with docker.io/.
	flannelImage = "docker.io/capstan/flannel:v0.27.4"
)

// hostSysctls are the host settings the kubelet wants to change (none is namespaced): a node
// must leave every one of them as it found it.
var hostSysctls = []string{
	"vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops",
	"kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes", "fs/file-max", "fs/nr_open",
}

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

// startNode runs a node container the way the Docker provider does: exactly the flags proven
// on this engine, a named volume for /var, an internal network and no DNS beyond loopback.
func startNode(t *testing.T, cli *client.Client, name string) (id string, started time.Time) {
	t.Helper()
	ctx := context.Background()
	labels := map[string]string{testLabel: name}
	_, err := cli.NetworkCreate(ctx, name, network.CreateOptions{Internal: true, Labels: labels})
	require.NoError(t, err)
	_, err = cli.VolumeCreate(ctx, volume.CreateOptions{Name: name + "-var", Labels: labels})
	require.NoError(t, err)
	// Creating the container includes Docker's copy of the image's /var into the new volume.
	started = time.Now()
	created, err := cli.ContainerCreate(ctx,
		&container.Config{Image: nodeImage, Hostname: name, Labels: labels, Tty: true},
		&container.HostConfig{
			// --cap-add ALL --cap-drop SYS_RESOURCE --security-opt seccomp=unconfined
			CapAdd:      []string{"ALL"},
			CapDrop:     []string{"SYS_RESOURCE"},
			SecurityOpt: []string{"seccomp=unconfined"},
			Resources: container.Resources{
				// --device /dev/kmsg --device-cgroup-rule='a *:* rwm'
				Devices:           []container.DeviceMapping{{PathOnHost: "/dev/kmsg", PathInContainer: "/dev/kmsg", CgroupPermissions: "rwm"}},
				DeviceCgroupRules: []string{"a *:* rwm"},
			},
			// --cgroupns=private -v <volume>:/var --dns 127.0.0.1 --network <internal>
			CgroupnsMode: container.CgroupnsModePrivate,
			Binds:        []string{name + "-var:/var"},
			DNS:          []string{"127.0.0.1"},
			NetworkMode:  container.NetworkMode(name),
		},
		nil, nil, name)
	require.NoError(t, err)
	require.NoError(t, cli.ContainerStart(ctx, created.ID, container.StartOptions{}))
	return created.ID, started
}

func TestNodeImage_BootsWithBakedImagesAndLeavesHostSysctls(t *testing.T) {
	cli := engine(t)
	before := readHostSysctls(t)
	// Registered before the objects' removal, so it runs after it (cleanups run last first).
	t.Cleanup(func() {
		require.Equal(t, before, readHostSysctls(t), "host sysctls after the node container was removed")
	})
	name := scratchObjects(t, cli)
	build := buildImage(t, cli, nodeImage, "make node-image", "node-image.sh", kubernetesVersion)
	t.Logf("timing: node image build (cached when unchanged): %s", build.Round(100*time.Millisecond))

	id, started := startNode(t, cli, name)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	require.NoError(t, waitForLog(ctx, cli, id, regexp.MustCompile(`Reached target .*Multi-User System`)))
	t.Logf("timing: container create+start to systemd multi-user: %s", time.Since(started).Round(10*time.Millisecond))

	t.Run("systemd runs the node's units", func(t *testing.T) {
		require.Equal(t, "active\n", mustExec(t, cli, id, "systemctl", "is-active", "multi-user.target"))
		require.Equal(t, "active\n", mustExec(t, cli, id, "systemctl", "is-active", "containerd.service"))
		require.Equal(t, "enabled\n", mustExec(t, cli, id, "systemctl", "is-enabled", "kubelet.service"))
		require.Equal(t, "masked\n", mustExec(t, cli, id, "sh", "-c", "systemctl is-enabled systemd-sysctl.service || true"))
		require.Empty(t, mustExec(t, cli, id, "systemctl", "list-units", "--failed", "--no-legend", "--plain"), "failed units")
	})

	t.Run("containerd holds every kubeadm image without an import at boot", func(t *testing.T) {
		want := strings.Fields(mustExec(t, cli, id, "kubeadm", "config", "images", "list", "--kubernetes-version", kubernetesVersion))
		require.Len(t, want, 7, "kubeadm config images list")
		want = append(want, flannelImage)
		sort.Strings(want)
		mustExec(t, cli, id, "ctr", "version")
		listed := strings.Fields(mustExec(t, cli, id, "ctr", "-n", "k8s.io", "images", "ls", "-q"))
		require.Subset(t, listed, want, "ctr -n k8s.io images ls")
		crictl := mustExec(t, cli, id, "crictl", "images")
		for _, ref := range want {
			repo, tag, _ := strings.Cut(ref, ":")
			require.Regexp(t, regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(repo)+`\s+`+regexp.QuoteMeta(tag)+`\s`), crictl, "crictl images")
		}
		// Docker filled the new /var volume from the image; containerd's metadata says when each
		// unpacked snapshot was made: all of them before this container started (directory
		// modification times would not do: Docker's copy does not keep them).
		keys := strings.Fields(mustExec(t, cli, id, "sh", "-c", "ctr -n k8s.io snapshots ls | awk 'NR > 1 {print $1}'"))
		require.GreaterOrEqual(t, len(keys), len(want), "unpacked snapshots")
		for _, key := range keys {
			var info struct {
				Kind    string
				Created time.Time
			}
			require.NoError(t, json.Unmarshal([]byte(mustExec(t, cli, id, "ctr", "-n", "k8s.io", "snapshots", "info", key)), &info))
			require.Equal(t, "Committed", info.Kind, key)
			require.True(t, info.Created.Before(started), "snapshot %s was made at %s, after the container started at %s", key, info.Created, started)
		}
	})

	t.Run("the node binaries are the requested version", func(t *testing.T) {
		require.Equal(t, "Kubernetes "+kubernetesVersion+"\n", mustExec(t, cli, id, "kubelet", "--version"))
		require.Equal(t, kubernetesVersion+"\n", mustExec(t, cli, id, "kubeadm", "version", "-o", "short"))
		require.Contains(t, mustExec(t, cli, id, "kubectl", "version", "--client"), kubernetesVersion)
		// What the provider's bootstrap exec runs, and what the node needs besides.
		mustExec(t, cli, id, "sh", "-c", "for c in sh cat cp mkdir chmod chown test crictl ctr runc iptables conntrack; do "+
			"command -v $c >/dev/null || { echo missing $c; exit 1; }; done")
	})

	t.Run("the sysctl shield gives the kubelet its values", func(t *testing.T) {
		for key, want := range map[string]string{"vm/overcommit_memory": "1", "kernel/panic": "10", "kernel/panic_on_oops": "1"} {
			require.Equal(t, want+"\n", mustExec(t, cli, id, "cat", "/proc/sys/"+key), key)
		}
		require.Equal(t, before, readHostSysctls(t), "host sysctls while the node runs")
	})

	if !t.Run("kubeadm init brings up an API server", func(t *testing.T) {
		kubeadmInit(t, cli, id, name)
		require.Equal(t, before, readHostSysctls(t), "host sysctls after kubeadm init")
	}) {
		return
	}

	t.Run("the baked flannel makes the node Ready", func(t *testing.T) {
		manifest, err := os.ReadFile(filepath.Join(repoRoot(t), "infrastructure-docker", "images", "flannel", "kube-flannel.yaml"))
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		start := time.Now()
		res, err := execIn(ctx, cli, id, string(manifest), "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "apply", "-f", "-")
		require.NoError(t, err)
		require.Equal(t, 0, res.ExitCode, "kubectl apply kube-flannel.yaml: %s", res)
		eventually(t, 2*time.Minute, 2*time.Second, "node "+name+" is Ready", func() error {
			res, err := execIn(ctx, cli, id, "", "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "get", "node", name,
				"-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
			if err != nil {
				return err
			}
			if res.ExitCode != 0 || res.Stdout != "True" {
				return fmt.Errorf("%s", res)
			}
			return nil
		})
		t.Logf("timing: flannel applied to node Ready: %s", time.Since(start).Round(100*time.Millisecond))
		// CoreDNS gets a pod IP from flannel's CNI plugin and the bridge, and must turn Ready.
		eventually(t, 2*time.Minute, 2*time.Second, "CoreDNS is Ready", func() error {
			res, err := execIn(ctx, cli, id, "", "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "-n", "kube-system",
				"get", "pods", "-l", "k8s-app=kube-dns", "-o", `jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}`)
			if err != nil {
				return err
			}
			if res.ExitCode != 0 || res.Stdout != "True True" {
				out, _ := execIn(ctx, cli, id, "", "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "-n", "kube-system",
					"logs", "-l", "k8s-app=kube-dns", "--tail", "5")
				return fmt.Errorf("%s\nlogs: %s", res, out)
			}
			return nil
		})
		t.Logf("timing: flannel applied to CoreDNS Ready: %s", time.Since(start).Round(100*time.Millisecond))
		t.Logf("pods:\n%s", mustExec(t, cli, id, "kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf", "get", "pods", "-A", "-o", "wide"))
		require.Equal(t, before, readHostSysctls(t), "host sysctls with flannel running")
	})
}

// kubeadmConfig follows the settings proven on this engine (environment notes): an explicit
// kubernetesVersion so kubeadm never fetches one, pull policy Never, the cgroupfs driver,
// cgroup v1 allowed, eviction thresholds at 0%, the node name = the container's hostname, and
// the node image's pod resolv.conf (no loopback nameserver, so CoreDNS does not see a loop).
const kubeadmConfig = `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
nodeRegistration:
  name: %[1]s
  criSocket: unix:///var/run/containerd/containerd.sock
  imagePullPolicy: Never
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: %[2]s
networking:
  podSubnet: 10.244.0.0/16
apiServer:
  certSANs: [localhost, 127.0.0.1]
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
resolvConf: /etc/capstan/pod-resolv.conf
imageGCHighThresholdPercent: 100
evictionHard:
  nodefs.available: "0%%"
  nodefs.inodesFree: "0%%"
  imagefs.available: "0%%"
---
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
conntrack:
  maxPerCore: 0
`

func kubeadmInit(t *testing.T, cli *client.Client, id, hostname string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := execIn(ctx, cli, id, fmt.Sprintf(kubeadmConfig, hostname, kubernetesVersion),
		"sh", "-c", "mkdir -p /run/kubeadm && cat > /run/kubeadm/kubeadm.yaml")
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, "writing the kubeadm config: %s", res)

	start := time.Now()
	res, err = execIn(ctx, cli, id, "", "kubeadm", "init", "--config", "/run/kubeadm/kubeadm.yaml",
		"--ignore-preflight-errors=SystemVerification,Swap,FileContent--proc-sys-net-bridge-bridge-nf-call-iptables")
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, "kubeadm init: %s", res)
	t.Logf("timing: kubeadm init: %s", time.Since(start).Round(100*time.Millisecond))

	kubectl := []string{"kubectl", "--kubeconfig", "/etc/kubernetes/admin.conf"}
	eventually(t, 3*time.Minute, time.Second, "the API server answers /readyz", func() error {
		res, err := execIn(ctx, cli, id, "", append(kubectl, "get", "--raw", "/readyz")...)
		if err != nil {
			return err
		}
		if res.ExitCode != 0 || res.Stdout != "ok" {
			return fmt.Errorf("%s", res)
		}
		return nil
	})
	t.Logf("timing: kubeadm init start to /readyz ok: %s", time.Since(start).Round(100*time.Millisecond))

	// kube-proxy runs from the Debian-based image (iptables) as a DaemonSet pod.
	eventually(t, 2*time.Minute, 2*time.Second, "the kube-proxy pod runs", func() error {
		res, err := execIn(ctx, cli, id, "", append(kubectl, "-n", "kube-system", "get", "pods",
			"-l", "k8s-app=kube-proxy", "-o", "jsonpath={.items[*].status.phase}")...)
		if err != nil {
			return err
		}
		if res.ExitCode != 0 || res.Stdout != "Running" {
			return fmt.Errorf("%s", res)
		}
		return nil
	})
	t.Logf("timing: kubeadm init start to kube-proxy Running: %s", time.Since(start).Round(100*time.Millisecond))
}
