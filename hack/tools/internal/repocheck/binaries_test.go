package repocheck

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"capstan.dev/contracts/k8sbin"
)

// The binaries are built from source with the version stamped through -ldflags -X;
// without it they report v0.0.0-master, which kubeadm's version checks reject.
func TestK8sBinaries_ReportThePinnedVersion(t *testing.T) {
	for _, tc := range []struct{ bin, flag, want string }{
		{"kube-apiserver", "--version", "Kubernetes " + k8sbin.KubernetesVersion},
		{"kube-controller-manager", "--version", "Kubernetes " + k8sbin.KubernetesVersion},
		{"kube-scheduler", "--version", "Kubernetes " + k8sbin.KubernetesVersion},
		{"kube-proxy", "--version", "Kubernetes " + k8sbin.KubernetesVersion},
		{"kubelet", "--version", "Kubernetes " + k8sbin.KubernetesVersion},
		{"kubeadm", "version", `GitVersion:"` + k8sbin.KubernetesVersion + `"`},
		{"kubectl", "version", "Client Version: " + k8sbin.KubernetesVersion},
		{"etcd", "--version", "etcd Version: 3.7.0"},
	} {
		t.Run(tc.bin, func(t *testing.T) {
			path, err := k8sbin.Path(tc.bin)
			require.NoError(t, err)
			args := []string{tc.flag}
			if tc.bin == "kubectl" {
				args = append(args, "--client")
			}
			out, _ := exec.Command(path, args...).CombinedOutput()
			require.Contains(t, string(out), tc.want)
		})
	}
}
