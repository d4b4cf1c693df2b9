package node

import (
	"context"
	"fmt"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"capstan.dev/infrastructure-docker/internal/docker"
)

// runtimeRetry is how soon a node whose containerd was restarted for its CRI plugin is looked
// at again.
const runtimeRetry = 10 * time.Second

// restartRuntimeScript prints the last error containerd logged loading its CRI plugin and
// restarts containerd, which loads its plugins again. It exits 0 whatever it finds: the next
// state read says whether the plugin loaded.
const restartRuntimeScript = `journalctl -u containerd -o cat --no-pager 2>/dev/null | grep -F 'failed to load plugin io.containerd.grpc.v1.cri' | tail -n 1 | head -c 400
systemctl restart containerd >/dev/null 2>&1
exit 0`

// restartRuntime handles a booted node whose containerd runs without its CRI plugin, before
// the bootstrap lock: kubeadm's preflight would fail on it ("unknown service
// runtime.v1.RuntimeService") and end the bootstrap for good, with nothing wrong but a moment
// of scarcity. containerd does not retry a plugin that failed to load, so the provider
// restarts it and waits; nothing has run in the node yet. Seen when the node containers of
// the host exhausted its inotify instances (fs.inotify.max_user_instances is per user, and all
// node containers run as root): the plugin could not create its CNI config watcher.
func (p *Provisioner) restartRuntime(ctx context.Context, c *docker.Container) (BootstrapStatus, error) {
	res, err := p.Docker.Exec(ctx, c, nil, "/bin/sh", "-c", restartRuntimeScript)
	if err != nil {
		return BootstrapStatus{}, fmt.Errorf("restarting containerd in %s: %w", c.Name, err)
	}
	cause := strings.TrimSpace(res.Stdout)
	if i := strings.Index(cause, "error="); i >= 0 {
		cause = strings.Trim(cause[i+len("error="):], `"`)
	}
	if cause == "" {
		cause = "containerd's log says nothing about it"
	}
	ctrl.LoggerFrom(ctx).Info("Restarted containerd: its CRI plugin had not loaded", "container", c.Name, "cause", cause)
	return BootstrapStatus{Phase: BootstrapWaitingForContainer, Message: fmt.Sprintf(
		"containerd in the node container runs without its CRI plugin, which kubeadm needs (%s); containerd was restarted "+
			"to load it again and nothing was run yet. If this persists, the host may be out of inotify instances "+
			"(fs.inotify.max_user_instances, shared by every node container): run fewer nodes at once", cause),
		RequeueAfter: runtimeRetry}, nil
}
