//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Images baked into the node image (nothing can be pulled): etcd serves HTTP /health, and the
// flannel image has bash (its /dev/tcp) and getent for the client.
const (
	serverImage = "registry.k8s.io/etcd:3.7.0-0"
	clientImage = "docker.io/capstan/flannel:v0.27.4"
)

var controlPlaneToleration = corev1.Toleration{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}

// workloadTraffic runs a Deployment of 2 replicas spread over both nodes behind a Service and
// shows, from a pod on one node, that the Service name resolves (CoreDNS), the Service routes
// (kube-proxy), and the replica on the other node answers on its pod IP (the CNI overlay).
func (s *suite) workloadTraffic() {
	ns := metav1.NamespaceDefault
	labels := map[string]string{"app": "web"}
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Tolerations: []corev1.Toleration{controlPlaneToleration},
					TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
						MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule,
						LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
					}},
					Containers: []corev1.Container{{
						Name: "etcd", Image: serverImage, ImagePullPolicy: corev1.PullNever,
						Command: []string{"etcd", "--data-dir=/data", "--listen-client-urls=http://0.0.0.0:2379",
							"--advertise-client-urls=http://127.0.0.1:2379", "--listen-peer-urls=http://127.0.0.1:2380"},
						Ports:          []corev1.ContainerPort{{ContainerPort: 2379}},
						VolumeMounts:   []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromInt32(2379)}}},
					}},
					Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				},
			},
		},
	}
	require.NoError(s.t, s.workload.Create(s.ctx, deploy))
	defer func() { _ = s.workload.Delete(s.ctx, deploy) }()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec:       corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 2379, TargetPort: intstr.FromInt32(2379)}}},
	}
	require.NoError(s.t, s.workload.Create(s.ctx, svc))
	defer func() { _ = s.workload.Delete(s.ctx, svc) }()

	podIPByNode := map[string]string{}
	s.waitFor(5*time.Minute, "2 replicas of web available on 2 nodes", func() (bool, string, error) {
		pods := &corev1.PodList{}
		if err := s.workload.List(s.ctx, pods, client.InNamespace(ns), client.MatchingLabels(labels)); err != nil {
			return false, "", err
		}
		podIPByNode = map[string]string{}
		for _, p := range pods.Items {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					podIPByNode[p.Spec.NodeName] = p.Status.PodIP
				}
			}
		}
		return len(podIPByNode) == 2, fmt.Sprintf("ready replicas by node: %v", podIPByNode), nil
	})

	// The client runs on one node and reaches the replica on the other by pod IP.
	var clientNode, otherIP string
	for node := range podIPByNode {
		if clientNode == "" {
			clientNode = node
		} else {
			otherIP = podIPByNode[node]
		}
	}
	// A Service name resolves once CoreDNS has seen the Service, and routes once kube-proxy has
	// programmed it: both are eventually consistent, so the script waits for the name (with a
	// deadline, saying so) before it requires every request to succeed.
	script := `set -uo pipefail
get() { exec 3<>"/dev/tcp/$1/2379" || return 1; printf 'GET /health HTTP/1.0\r\nHost: web\r\n\r\n' >&3; timeout 5 cat <&3 | tee /dev/stderr | grep -q '"health":"true"'; local rc=$?; exec 3<&-; return $rc; }
for i in $(seq 1 30); do getent hosts web.default.svc.cluster.local && break; echo "web.default.svc.cluster.local does not resolve yet ($i)"; sleep 2; done
getent hosts web.default.svc.cluster.local || { echo "web.default.svc.cluster.local never resolved"; exit 1; }
for i in $(seq 1 15); do get web && break; echo "Service web does not answer yet ($i)"; sleep 2; done
for i in 1 2 3 4 5 6; do get web || { echo "request $i through Service web failed"; exit 1; }; done
get "$OTHER_POD_IP" || { echo "the replica on the other node ($OTHER_POD_IP) did not answer"; exit 1; }
echo ALL-OK`
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "client"},
		Spec: corev1.PodSpec{
			NodeName:      clientNode,
			RestartPolicy: corev1.RestartPolicyNever,
			Tolerations:   []corev1.Toleration{controlPlaneToleration},
			Containers: []corev1.Container{{
				Name: "client", Image: clientImage, ImagePullPolicy: corev1.PullNever,
				Command: []string{"bash", "-c", script},
				Env:     []corev1.EnvVar{{Name: "OTHER_POD_IP", Value: otherIP}},
			}},
		},
	}
	require.NoError(s.t, s.workload.Create(s.ctx, pod))
	defer func() { _ = s.workload.Delete(s.ctx, pod) }()
	phase := corev1.PodPhase("")
	s.waitFor(3*time.Minute, "the client pod on "+clientNode+" to finish", func() (bool, string, error) {
		if err := s.workload.Get(s.ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
			return false, "", err
		}
		phase = pod.Status.Phase
		return phase == corev1.PodSucceeded || phase == corev1.PodFailed, string(phase), nil
	})
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	logs, err := s.clientset.CoreV1().Pods(ns).GetLogs(pod.Name, &corev1.PodLogOptions{}).Stream(ctx)
	require.NoError(s.t, err)
	out, _ := io.ReadAll(logs)
	_ = logs.Close()
	require.Equal(s.t, corev1.PodSucceeded, phase, "client output:\n%s", out)
	require.Contains(s.t, string(out), "ALL-OK")
}
