//go:build clusterctl

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

package interop

import (
	"context"
	"fmt"
	"maps"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/clusterctl"
	"capstan.dev/core/internal/capstanctl/components"
	"capstan.dev/core/internal/capstanctl/ctltest"
)

const newerVersion = "v0.2.0"

// Upstream clusterctl upgrades Capstan's release to a newer one written into the same
// repository: upgrade plan offers it for every provider, and upgrade apply --wait-providers
// deletes each provider's components but its CRDs and namespace, applies the newer release's
// (an object edited since init gets the release's content back), waits until each new manager
// Deployment is Available and writes the newer version into the inventory; the clusters'
// objects stay. envtest runs no kube-controller-manager, so the test writes each new
// Deployment's status, as its Deployment controller would once the Pods run.
func TestClusterctl_UpgradeApplyReappliesTheNewerReleasesComponents(t *testing.T) {
	mc := startManagementCluster(t)
	repo, home := t.TempDir(), t.TempDir()
	config := writeRelease(t, repo, version)
	kc := ctltest.KubeconfigFile(t, mc)
	_, err := runClusterctl(t, home, "init", "--config", config, "--kubeconfig", kc,
		"--core", "cluster-api", "--bootstrap", "kubeadm", "--control-plane", "kubeadm", "--infrastructure", "docker")
	require.NoError(t, err)
	w := newWorkload(t, mc)
	role, wantRules := coreClusterRole(t)
	envtest.Update(t, mc.Client, role, func() {
		role.Rules = []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}
	})

	config = writeRelease(t, repo, newerVersion)
	out, err := runClusterctl(t, home, "upgrade", "plan", "--config", config, "--kubeconfig", kc)
	require.NoError(t, err)
	for _, p := range clusterctl.Providers {
		require.Regexp(t, p.Label+` +\S+ +`+p.Type+` +`+version+` +`+newerVersion, out)
	}

	apply := clusterctlCommand(t, home, "upgrade", "apply", "--contract", "v1beta2", "--wait-providers", "--config", config, "--kubeconfig", kc)
	done := startCommand(t, apply)
	newer := managerImages(newerVersion)
	// Generous: clusterctl lists every kind the server serves to delete each provider's old
	// components, which takes minutes on a loaded machine.
	envtest.WaitFor(t, 8*time.Minute, "the newer release's manager Deployments", func() (bool, error) {
		if got := ctltest.ManagerImages(t, mc); !maps.Equal(got, newer) {
			return false, fmt.Errorf("images %v", got)
		}
		return true, nil
	})
	select {
	case err := <-done:
		t.Fatalf("clusterctl upgrade apply --wait-providers ended before its Deployments were Available: %v", err)
	default:
	}
	markAvailable(t, mc)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(3 * time.Minute):
		t.Fatal("clusterctl upgrade apply did not end within 3 minutes of its Deployments turning Available")
	}

	want, err := clusterctl.Inventory(components.All, newerVersion)
	require.NoError(t, err)
	require.ElementsMatch(t, formatInventory(want), inventory(t, mc))
	require.NoError(t, mc.Client.Get(context.Background(), client.ObjectKeyFromObject(role), role))
	require.Equal(t, wantRules, role.Rules, "upgrade apply applied the release's ClusterRole over the edit")
	for _, o := range w.objs {
		got := o.DeepCopy()
		require.NoError(t, mc.Client.Get(context.Background(), client.ObjectKeyFromObject(o), got))
		require.Equal(t, o.GetUID(), got.GetUID(), "%s %s stayed", o.GetKind(), o.GetName())
	}
}

// coreClusterRole returns a ClusterRole of the core's components with rules (a key to read it)
// and its rules as the release holds them.
func coreClusterRole(t *testing.T) (*rbacv1.ClusterRole, []rbacv1.PolicyRule) {
	t.Helper()
	ms, err := components.Select([]string{"core"})
	require.NoError(t, err)
	objs, err := ms[0].Objects()
	require.NoError(t, err)
	for _, o := range objs {
		if o.GetKind() != "ClusterRole" {
			continue
		}
		role := &rbacv1.ClusterRole{}
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, role))
		if len(role.Rules) > 0 {
			return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role.Name}}, role.Rules
		}
	}
	t.Fatal("the core's components hold no ClusterRole with rules")
	return nil, nil
}

// startCommand starts c and returns a channel receiving its end (with its output on failure).
func startCommand(t *testing.T, c *exec.Cmd) <-chan error {
	t.Helper()
	var out ctltest.SyncBuffer
	c.Stdout, c.Stderr = &out, &out
	require.NoError(t, c.Start())
	done := make(chan error, 1)
	go func() {
		err := c.Wait()
		t.Logf("clusterctl %v:\n%s", c.Args[1:], out.String())
		if err != nil {
			err = fmt.Errorf("%w: %s", err, out.String())
		}
		done <- err
	}()
	return done
}

// markAvailable writes, on every Deployment of e's providers, the status the Deployment
// controller writes once the Pods run: every replica up to date, ready and available.
func markAvailable(t *testing.T, e *envtest.Environment) {
	t.Helper()
	list := &appsv1.DeploymentList{}
	require.NoError(t, e.Client.List(context.Background(), list, client.HasLabels{clusterctl.ProviderLabel}))
	require.NotEmpty(t, list.Items)
	for i := range list.Items {
		d := &list.Items[i]
		envtest.UpdateStatus(t, e.Client, d, func() {
			n := *d.Spec.Replicas
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n,
				Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
					LastUpdateTime: metav1.Now(), LastTransitionTime: metav1.Now()}}}
		})
	}
}

// formatInventory renders inventory entries as inventory does.
func formatInventory(entries []*unstructured.Unstructured) []string {
	var out []string
	for _, p := range entries {
		out = append(out, fmt.Sprintf("%s/%s %s %s %s %v", p.GetNamespace(), p.GetName(),
			p.Object["providerName"], p.Object["type"], p.Object["version"], p.GetLabels()))
	}
	return out
}
