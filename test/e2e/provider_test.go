//go:build e2e

package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conformance/example/release"
	"capstan.dev/test/framework"
)

const exampleGroup = "infrastructure.example.capstan.dev"

// thirdParty is the conformance kit's example provider as a third party ships it: a clusterctl
// repository with two releases (v0.1.0; v0.2.0 with a new image and a new storage version
// converted by its own webhook), installed into the workload cluster that SelfHosting made a
// management cluster.
type thirdParty struct {
	s        *suite
	config   string // the clusterctl.yaml listing the repository
	kc       string // the hosting cluster's kubeconfig
	hosted   client.WithWatch
	ns, name string
}

// thirdPartyProvider installs the example provider v0.1.0 with `capstanctl init
// --infrastructure`, creates a cluster from its template, upgrades the provider to v0.2.0
// while the cluster runs (no Machine replaced on any event, objects migrated to v1alpha2 and
// served at v1alpha1 through the provider's webhook, the new manager provisioning), moves the
// cluster to the local management plane (the provider there as a local process) and back,
// deletes the cluster and then the provider with its CRDs.
func (s *suite) thirdPartyProvider() {
	tp := s.newThirdParty()
	defer tp.dumpOnFailure()
	// SelfHosting ends by scaling the workers down; a manager whose pod ran on the removed node
	// is rescheduled and must take its Lease again before the spec can rely on it.
	for _, p := range providers {
		s.waitForLease(tp.hosted, p, time.Now())
	}
	tp.loadImages()
	tp.capstanctl("init", "--kubeconfig", tp.kc, "--config", tp.config, "--infrastructure", "example:v0.1.0")
	tp.waitForManager("v0.1.0")
	tp.createCluster()
	tp.upgrade()
	tp.moveAwayAndBack()
	tp.deleteClusterAndProvider()
}

func (s *suite) newThirdParty() *thirdParty {
	dir := s.t.TempDir()
	for _, v := range release.Versions {
		require.NoError(s.t, release.Write(filepath.Join(dir, "repository"), v))
	}
	config := filepath.Join(dir, "clusterctl.yaml")
	require.NoError(s.t, os.WriteFile(config, fmt.Appendf(nil, `providers:
- name: example
  type: InfrastructureProvider
  url: %s
`, filepath.Join(dir, "repository", release.ProviderLabel, "latest", "infrastructure-components.yaml")), 0o600))
	kc := filepath.Join(dir, "hosting.kubeconfig")
	require.NoError(s.t, os.WriteFile(kc, s.kubeconfig, 0o600))
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	require.NoError(s.t, err)
	scheme := framework.Scheme()
	require.NoError(s.t, apiextensionsv1.AddToScheme(scheme))
	hosted, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	require.NoError(s.t, err)
	return &thirdParty{s: s, config: config, kc: kc, hosted: hosted, ns: s.ns + "-example", name: "example"}
}

func (tp *thirdParty) capstanctl(args ...string) { tp.s.capstanctl(args...) }

// mdKey is the cluster template's MachineDeployment.
func (tp *thirdParty) mdKey() client.ObjectKey {
	return client.ObjectKey{Namespace: tp.ns, Name: tp.name + "-md-0"}
}

// loadImages puts both releases' manager images (make example-images) on every node.
func (tp *thirdParty) loadImages() {
	for _, node := range tp.s.nodeNames() {
		for _, v := range release.Versions {
			require.NoError(tp.s.t, framework.LoadImage(tp.s.ctx, tp.s.docker, node, release.ImageRepository+":"+v),
				"make example-images builds the example provider's images")
		}
	}
}

// waitForManager waits until the provider's Deployment runs version's image, all pods ready.
func (tp *thirdParty) waitForManager(version string) {
	image := release.ImageRepository + ":" + version
	tp.s.waitFor(4*time.Minute, "the example provider's manager "+version+" to be ready", func() (bool, string, error) {
		pods := &corev1.PodList{}
		if err := tp.hosted.List(tp.s.ctx, pods, client.InNamespace(release.Namespace)); err != nil {
			return false, "", err
		}
		var seen []string
		ready := 0
		for _, p := range pods.Items {
			seen = append(seen, fmt.Sprintf("%s %s %s ready=%t", p.Name, p.Spec.Containers[0].Image, p.Status.Phase, podReady(&p)))
			if p.Spec.Containers[0].Image == image && podReady(&p) && p.DeletionTimestamp == nil {
				ready++
			}
		}
		return ready == 1 && len(pods.Items) == 1, strings.Join(seen, "; "), nil
	})
}

// createCluster renders the provider's cluster template with `capstanctl generate cluster
// --infrastructure` and applies it; the example's one machine gets provisioned.
func (tp *thirdParty) createCluster() {
	require.NoError(tp.s.t, tp.hosted.Create(tp.s.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tp.ns}}))
	out, err := tp.s.capstanctlOutput(time.Minute, "generate", "cluster", tp.name, "--config", tp.config,
		"--infrastructure", "example:v0.1.0", "--target-namespace", tp.ns, "--worker-machine-count", "1")
	require.NoError(tp.s.t, err)
	objs, err := framework.ParseManifest(out)
	require.NoError(tp.s.t, err)
	require.NoError(tp.s.t, framework.Apply(tp.s.ctx, tp.hosted, objs))
	tp.waitForProvisioned(tp.hosted, 1)
}

// waitForProvisioned waits until the cluster's infrastructure is provisioned and n Machines
// have their ExampleMachine provisioned (providerID on the Machine), on management cluster c.
func (tp *thirdParty) waitForProvisioned(c client.Client, n int) {
	tp.s.waitFor(3*time.Minute, fmt.Sprintf("%d example Machines provisioned", n), func() (bool, string, error) {
		cluster := &clusterv1.Cluster{}
		if err := c.Get(tp.s.ctx, client.ObjectKey{Namespace: tp.ns, Name: tp.name}, cluster); err != nil {
			return false, "", err
		}
		machines := &clusterv1.MachineList{}
		if err := c.List(tp.s.ctx, machines, client.InNamespace(tp.ns)); err != nil {
			return false, "", err
		}
		provisioned := 0
		for _, m := range machines.Items {
			if strings.HasPrefix(m.Spec.ProviderID, "example:///") && m.DeletionTimestamp == nil {
				provisioned++
			}
		}
		infra := cluster.Status.Initialization.InfrastructureProvisioned
		return infra != nil && *infra && provisioned == n && len(machines.Items) == n,
			fmt.Sprintf("infrastructure provisioned %v, %d Machines, %d provisioned", ptrTrue(infra), len(machines.Items), provisioned), nil
	})
}

func (tp *thirdParty) watchMachines() *machineEvents {
	return watchMachineEvents(tp.s, tp.hosted, tp.ns)
}

// upgrade moves the provider to v0.2.0 with `capstanctl upgrade apply` while the cluster runs.
func (tp *thirdParty) upgrade() {
	s := tp.s
	before := tp.exampleMachines("v1alpha1")
	require.Len(s.t, before, 1)
	// A template using the field v1alpha2 moves (addressesFromPools → network.addressesFromPools):
	// migrated without its conversion, it would lose the pools.
	pools := []any{map[string]any{"apiGroup": "ipam.cluster.x-k8s.io", "kind": "InClusterIPPool", "name": "nodes"}}
	withPools := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": exampleGroup + "/v1alpha1", "kind": "ExampleMachineTemplate",
		"metadata": map[string]any{"name": "with-pools", "namespace": tp.ns},
		"spec":     map[string]any{"template": map[string]any{"spec": map[string]any{"addressesFromPools": pools}}},
	}}
	require.NoError(s.t, tp.hosted.Create(s.ctx, withPools))
	events := tp.watchMachines()
	tp.capstanctl("upgrade", "apply", "--kubeconfig", tp.kc, "--config", tp.config,
		"--infrastructure", release.Namespace+"/example:v0.2.0", "--wait", "--timeout", "5m")
	tp.waitForManager("v0.2.0")

	// Every example CRD stores v1alpha2 only, and the objects read at both versions: v1alpha1
	// through the new manager's conversion webhook.
	for _, plural := range []string{"exampleclusters", "examplemachines", "examplemachinetemplates"} {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		require.NoError(s.t, tp.hosted.Get(s.ctx, client.ObjectKey{Name: plural + "." + exampleGroup}, crd))
		require.Equal(s.t, []string{"v1alpha2"}, crd.Status.StoredVersions, "%s migrated to the new storage version", crd.Name)
		require.Equal(s.t, apiextensionsv1.WebhookConverter, crd.Spec.Conversion.Strategy)
		require.NotEmpty(s.t, crd.Spec.Conversion.Webhook.ClientConfig.CABundle, "the manager wrote its CA into %s", crd.Name)
	}
	// The template, stored at v1alpha2 now, reads with the pools moved, and at v1alpha1 as written.
	for version, path := range map[string][]string{
		"v1alpha2": {"spec", "template", "spec", "network", "addressesFromPools"},
		"v1alpha1": {"spec", "template", "spec", "addressesFromPools"},
	} {
		got := &unstructured.Unstructured{}
		got.SetAPIVersion(exampleGroup + "/" + version)
		got.SetKind("ExampleMachineTemplate")
		require.NoError(s.t, tp.hosted.Get(s.ctx, client.ObjectKeyFromObject(withPools), got))
		value, _, _ := unstructured.NestedSlice(got.Object, path...)
		require.Equal(s.t, pools, value, "ExampleMachineTemplate with-pools at %s: %s", version, strings.Join(path, "."))
	}
	require.Len(s.t, tp.exampleMachines("v1alpha1"), 1, "the ExampleMachines read at v1alpha1, converted by the new manager")
	after := tp.exampleMachines("v1alpha2")
	require.Len(s.t, after, 1)
	require.Equal(s.t, before[0].GetUID(), after[0].GetUID(), "the ExampleMachine is the one created before the upgrade")
	providerID, _, _ := unstructured.NestedString(after[0].Object, "spec", "providerID")
	require.Equal(s.t, "example:///"+after[0].GetName(), providerID)

	// The new manager provisions: a second Machine, its ExampleMachine created by the core at
	// the contract's version (v1alpha2) and provisioned by v0.2.0.
	s.patchReplicasOn(tp.hosted, &clusterv1.MachineDeployment{}, tp.mdKey(), 2)
	tp.waitForProvisioned(tp.hosted, 2)
	require.Empty(s.t, withoutScaleUp(events.stop()), "no Machine was replaced during the upgrade")
	provider := &unstructured.Unstructured{}
	provider.SetAPIVersion("clusterctl.cluster.x-k8s.io/v1alpha3")
	provider.SetKind("Provider")
	require.NoError(s.t, tp.hosted.Get(s.ctx, client.ObjectKey{Namespace: release.Namespace, Name: release.ProviderLabel}, provider))
	version, _, _ := unstructured.NestedString(provider.Object, "version")
	require.Equal(s.t, "v0.2.0", version, "the inventory records the upgrade")
}

// withoutScaleUp drops from the upgrade's Machine events the one Added of the Machine the scale
// to 2 asked for: anything else (a delete, a second Added) is a replacement.
func withoutScaleUp(events []string) []string {
	var out []string
	added := 0
	for _, e := range events {
		if strings.HasPrefix(e, "ADDED ") && added == 0 {
			added++
			continue
		}
		out = append(out, e)
	}
	return out
}

// exampleMachines lists the namespace's ExampleMachines at version.
func (tp *thirdParty) exampleMachines(version string) []unstructured.Unstructured {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(exampleGroup + "/" + version)
	list.SetKind("ExampleMachineList")
	require.NoError(tp.s.t, tp.hosted.List(tp.s.ctx, list, client.InNamespace(tp.ns)))
	return list.Items
}

// moveAwayAndBack moves the cluster to the local management plane, where the same release
// runs as a local process (the plane has no nodes for its Deployment), scales it down there,
// and moves it back.
func (tp *thirdParty) moveAwayAndBack() {
	s := tp.s
	mgmtKC := s.mgmtKubeconfig()
	tp.capstanctl("init", "--kubeconfig", mgmtKC, "--config", tp.config, "--infrastructure", "example:v0.2.0")
	stopLocal := tp.startLocalManager(mgmtKC)
	defer stopLocal()
	tp.capstanctl("move", "--kubeconfig", tp.kc, "--to-kubeconfig", mgmtKC, "-n", tp.ns)
	err := tp.hosted.Get(s.ctx, client.ObjectKey{Namespace: tp.ns, Name: tp.name}, &clusterv1.Cluster{})
	require.True(s.t, apierrors.IsNotFound(err), "the Cluster left the hosting cluster: %v", err)

	// On the local plane its provider deletes a machine (its finalizer) and keeps the other.
	s.patchReplicasOn(s.mgmt, &clusterv1.MachineDeployment{}, tp.mdKey(), 1)
	tp.waitForProvisioned(s.mgmt, 1)
	tp.capstanctl("move", "--kubeconfig", mgmtKC, "--to-kubeconfig", tp.kc, "-n", tp.ns)

	// Home again: the hosted v0.2.0 manager provisions a new machine.
	s.patchReplicasOn(tp.hosted, &clusterv1.MachineDeployment{}, tp.mdKey(), 2)
	tp.waitForProvisioned(tp.hosted, 2)
	stopLocal()
	tp.capstanctl("delete", "--kubeconfig", mgmtKC, "--infrastructure", "example", "--include-crd")
}

// startLocalManager runs bin/example-manager (v0.2.0's code) against the plane with its
// webhook on a loopback port, as a contributor runs a provider; the returned func stops it.
func (tp *thirdParty) startLocalManager(kubeconfig string) func() {
	s := tp.s
	port := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(s.t, err)
		defer l.Close()
		return l.Addr().String()
	}
	cmd := exec.Command(filepath.Join(s.repo, "bin", "example-manager"), "--kubeconfig="+kubeconfig,
		"--leader-elect=false", "--diagnostics-address=0", "--health-addr="+port(), "--webhook-bind-address="+port())
	logf, err := os.Create(filepath.Join(s.t.TempDir(), "example-manager.log"))
	require.NoError(s.t, err)
	cmd.Stdout, cmd.Stderr = logf, logf
	require.NoError(s.t, cmd.Start(), "make managers builds bin/example-manager")
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			_ = logf.Close()
			if s.t.Failed() {
				log, _ := os.ReadFile(logf.Name())
				s.t.Logf("example-manager (local) log:\n%s", log)
			}
		})
	}
}

// deleteClusterAndProvider deletes the cluster (the provider lets its objects go), then the
// provider and its CRDs; the namespace and the inventory entry go with it.
func (tp *thirdParty) deleteClusterAndProvider() {
	s := tp.s
	require.NoError(s.t, tp.hosted.Delete(s.ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: tp.ns, Name: tp.name}}))
	s.waitFor(3*time.Minute, "the example cluster to be deleted", func() (bool, string, error) {
		left := tp.exampleMachines("v1alpha2")
		err := tp.hosted.Get(s.ctx, client.ObjectKey{Namespace: tp.ns, Name: tp.name}, &clusterv1.Cluster{})
		return apierrors.IsNotFound(err) && len(left) == 0, fmt.Sprintf("cluster: %v, %d ExampleMachines", err, len(left)), client.IgnoreNotFound(err)
	})
	// The MachineDeployment made the Cluster an owner of its template (as upstream's does), so the
	// garbage collector takes it with the Cluster; the upgrade's extra one belongs to no Cluster.
	s.waitFor(2*time.Minute, "the garbage collector to delete the MachineDeployment's template with the Cluster", func() (bool, string, error) {
		tmpl := &unstructured.Unstructured{}
		tmpl.SetAPIVersion(exampleGroup + "/v1alpha2")
		tmpl.SetKind("ExampleMachineTemplate")
		err := tp.hosted.Get(s.ctx, tp.mdKey(), tmpl) // the template is named as the MachineDeployment
		return apierrors.IsNotFound(err), fmt.Sprintf("template: %v, owners %v", err, tmpl.GetOwnerReferences()), client.IgnoreNotFound(err)
	})
	templates := &unstructured.Unstructured{}
	templates.SetAPIVersion(exampleGroup + "/v1alpha2")
	templates.SetKind("ExampleMachineTemplate")
	require.NoError(s.t, tp.hosted.DeleteAllOf(s.ctx, templates, client.InNamespace(tp.ns)))
	tp.capstanctl("delete", "--kubeconfig", tp.kc, "--infrastructure", "example", "--include-crd")
	s.waitFor(2*time.Minute, "the example provider to be gone", func() (bool, string, error) {
		err := tp.hosted.Get(s.ctx, client.ObjectKey{Name: "examplemachines." + exampleGroup}, &apiextensionsv1.CustomResourceDefinition{})
		dep := tp.hosted.Get(s.ctx, client.ObjectKey{Namespace: release.Namespace, Name: release.Deployment}, &appsv1.Deployment{})
		return apierrors.IsNotFound(err) && apierrors.IsNotFound(dep), fmt.Sprintf("CRD: %v; Deployment: %v", err, dep), nil
	})
	require.NoError(s.t, client.IgnoreNotFound(tp.hosted.Delete(s.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tp.ns}})))
}

// dumpOnFailure logs, when the spec failed, the lines of the hosting cluster's core and example
// managers that mention the spec's namespace or failed.
func (tp *thirdParty) dumpOnFailure() {
	s := tp.s
	if !s.t.Failed() {
		return
	}
	for _, ns := range []string{"capstan-system", release.Namespace} {
		pods, err := s.clientset.CoreV1().Pods(ns).List(s.ctx, metav1.ListOptions{})
		if err != nil {
			s.t.Logf("listing the pods of %s: %v", ns, err)
			continue
		}
		for _, p := range pods.Items {
			raw, err := s.clientset.CoreV1().Pods(ns).GetLogs(p.Name, &corev1.PodLogOptions{}).DoRaw(s.ctx)
			var lines []string
			for _, l := range strings.Split(string(raw), "\n") {
				if strings.Contains(l, tp.ns) || strings.Contains(l, "ExampleMachine") || strings.Contains(l, `"level":"error"`) || strings.HasPrefix(l, "E") || strings.HasPrefix(l, "W") {
					lines = append(lines, l)
				}
			}
			if len(lines) > 200 {
				lines = lines[len(lines)-200:]
			}
			s.t.Logf("pod %s/%s on node %s, %s, ready %t (logs: %v), lines about %s or failing:\n%s",
				ns, p.Name, p.Spec.NodeName, p.Status.Phase, podReady(&p), err, tp.ns, strings.Join(lines, "\n"))
		}
	}
}
