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

package etcdrestore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/utils/ptr"
)

// TokenLabel is on every restore Pod, its value the restore's token.
const TokenLabel = "etcd-restore.capstan.dev/token"

const restoreContainer = "restore"

// nodeScript runs on each control plane node in the restore Pod (hostPID, /etc/kubernetes and
// etcd's data directory mounted at their own paths). The restored member/ directory is uploaded
// into $W before; at the epoch second in $W/at it stops etcd and the kube-apiserver (their
// static Pod manifests moved aside), swaps etcd's member/ for the restored one (the old one
// kept in $W/member.before, a rename on one filesystem), and puts the manifests back. Everything
// after the first manifest moves runs while this cluster's API server is down, so nothing here
// may need it; once it is back the Pod is not in the restored store and the kubelet ends it.
const nodeScript = `set -eu
W="$DATA_DIR/.capstan-restore/$TOKEN"; M=/etc/kubernetes/manifests
mkdir -p "$W/manifests"
log() { echo "$(date -u +%FT%TZ) $*" | tee -a "$W/log"; }
until [ -s "$W/at" ]; do sleep 1; done
at=$(cat "$W/at"); log "armed for $at"
while [ "$(date +%s)" -lt "$at" ]; do sleep 1; done
[ -s "$W/at" ] || { log "disarmed"; exec sleep infinity; }
[ -d "$W/member" ] || { log "no restored data in $W/member"; exit 1; }
for f in etcd.yaml kube-apiserver.yaml; do [ ! -f "$M/$f" ] || mv "$M/$f" "$W/manifests/$f"; done
running() { for p in /proc/[0-9]*; do c=$(cat "$p/comm" 2>/dev/null) || continue; case "$c" in etcd|kube-apiserver) return 0;; esac; done; return 1; }
i=0
while running; do
  i=$((i+1))
  if [ "$i" -gt 180 ]; then log "etcd or kube-apiserver still running after 180s: manifests put back, nothing restored"; mv "$W"/manifests/* "$M/"; exit 1; fi
  sleep 1
done
mv "$DATA_DIR/member" "$W/member.before"
mv "$W/member" "$DATA_DIR/member"
mv "$W"/manifests/* "$M/"
log "restored: previous data in $W/member.before"
exec sleep infinity
`

// podName is the restore Pod of node.
func podName(node string) string { return "capstan-etcd-restore-" + node }

// workDir is where a restore keeps its files on a node: inside etcd's data directory, so the
// swap is a rename on one filesystem (etcd ignores entries other than member/ there).
func (p *Plan) workDir(token string) string { return path.Join(p.DataDir, ".capstan-restore", token) }

// restorePod is the Pod that restores the member on node.
func (p *Plan) restorePod(node, token string) *corev1.Pod {
	hostPath := func(name, dir string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
			Path: dir, Type: ptr.To(corev1.HostPathDirectory)}}}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: podName(node), Labels: map[string]string{TokenLabel: token}},
		Spec: corev1.PodSpec{
			NodeName:                      node,
			HostPID:                       true,
			RestartPolicy:                 corev1.RestartPolicyNever,
			Tolerations:                   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			TerminationGracePeriodSeconds: ptr.To[int64](1),
			Containers: []corev1.Container{{
				Name: restoreContainer, Image: p.Image, ImagePullPolicy: corev1.PullIfNotPresent,
				Command: []string{"sh", "-c", nodeScript},
				Env:     []corev1.EnvVar{{Name: "TOKEN", Value: token}, {Name: "DATA_DIR", Value: p.DataDir}},
				VolumeMounts: []corev1.VolumeMount{
					{Name: "kubernetes", MountPath: "/etc/kubernetes"},
					{Name: "etcd-data", MountPath: p.DataDir},
				},
			}},
			Volumes: []corev1.Volume{hostPath("kubernetes", "/etc/kubernetes"), hostPath("etcd-data", p.DataDir)},
		},
	}
}

// startPods deletes restore Pods an interrupted run left, creates one per member and waits
// until each runs.
func (p *Plan) startPods(ctx context.Context, token string) error {
	pods := p.clientset.CoreV1().Pods(metav1.NamespaceSystem)
	if err := p.deletePods(ctx); err != nil {
		return err
	}
	for _, m := range p.Members {
		if _, err := pods.Create(ctx, p.restorePod(m.Name, token), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating the restore Pod kube-system/%s: %w", podName(m.Name), err)
		}
	}
	for _, m := range p.Members {
		if err := p.waitRunning(ctx, podName(m.Name)); err != nil {
			return err
		}
	}
	return nil
}

// deletePods deletes every restore Pod and waits until they are gone.
func (p *Plan) deletePods(ctx context.Context) error {
	pods := p.clientset.CoreV1().Pods(metav1.NamespaceSystem)
	sel := metav1.ListOptions{LabelSelector: TokenLabel}
	if err := pods.DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, sel); err != nil {
		return fmt.Errorf("deleting restore Pods in kube-system: %w", err)
	}
	return wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := pods.List(ctx, sel)
		return err == nil && len(l.Items) == 0, nil
	})
}

// waitRunning waits until the Pod runs; a Pod that fails or cannot get its image is an error
// naming why.
func (p *Plan) waitRunning(ctx context.Context, name string) error {
	var why string
	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		pod, err := p.clientset.CoreV1().Pods(metav1.NamespaceSystem).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			why = fmt.Sprint(err)
			return false, nil
		}
		why = string(pod.Status.Phase)
		for _, s := range pod.Status.ContainerStatuses {
			if w := s.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" {
				why = w.Reason + ": " + w.Message
				if strings.Contains(w.Reason, "Image") {
					return false, fmt.Errorf("restore Pod kube-system/%s cannot run image %s (%s): pass --image, an image the control plane nodes have with sh, tar and gzip", name, p.Image, why)
				}
			}
		}
		if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
			return false, fmt.Errorf("restore Pod kube-system/%s ended (%s) before the restore", name, pod.Status.Phase)
		}
		return pod.Status.Phase == corev1.PodRunning, nil
	})
	if err != nil && wait.Interrupted(err) {
		return fmt.Errorf("restore Pod kube-system/%s is not running after 2m (%s)", name, why)
	}
	return err
}

// exec runs command in the restore Pod of node with stdin, and returns an error with its stderr
// when it fails.
func (p *Plan) exec(ctx context.Context, node string, stdin io.Reader, command ...string) error {
	req := p.clientset.CoreV1().RESTClient().Post().Resource("pods").Namespace(metav1.NamespaceSystem).
		Name(podName(node)).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: restoreContainer, Command: command, Stdin: stdin != nil, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	ex, err := executor(p.workload, req.URL())
	if err != nil {
		return err
	}
	var stdout, stderr bytes.Buffer
	if err := ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: stdin, Stdout: &stdout, Stderr: &stderr}); err != nil {
		return fmt.Errorf("running %q in restore Pod kube-system/%s: %w (%s)", strings.Join(command, " "), podName(node), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// executor runs exec over WebSocket and falls back to SPDY when the API server cannot upgrade
// to it (workload clusters older than Kubernetes 1.31), as kubectl does.
func executor(cfg *rest.Config, u *url.URL) (remotecommand.Executor, error) {
	ws, err := remotecommand.NewWebSocketExecutor(cfg, "GET", u.String())
	if err != nil {
		return nil, err
	}
	spdy, err := remotecommand.NewSPDYExecutor(cfg, "POST", u)
	if err != nil {
		return nil, err
	}
	return remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
}

// upload unpacks the gzip tar data into the node's work directory.
func (p *Plan) upload(ctx context.Context, node, token string, data []byte) error {
	w := p.workDir(token)
	return p.exec(ctx, node, bytes.NewReader(data), "sh", "-c", `mkdir -p "$1" && tar -xzf - -C "$1"`, "upload", w)
}

// arm tells the node's script the epoch second to switch at; disarm takes it back.
func (p *Plan) arm(ctx context.Context, node, token string, at time.Time) error {
	w := p.workDir(token)
	return p.exec(ctx, node, nil, "sh", "-c", `echo "$2" > "$1/at.tmp" && mv "$1/at.tmp" "$1/at"`, "arm", w, fmt.Sprint(at.Unix()))
}

func (p *Plan) disarm(ctx context.Context, node, token string) error {
	return p.exec(ctx, node, nil, "sh", "-c", `: > "$1/at"`, "disarm", p.workDir(token))
}
