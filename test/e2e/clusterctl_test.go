//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
	"capstan.dev/test/framework"
)

// TestClusterctlOnARealCluster runs upstream clusterctl (make e2e-clusterctl builds it and names
// it in CAPSTAN_CLUSTERCTL) against Capstan's management plane with a real workload cluster:
// describe, get kubeconfig, upgrade plan over make release's repository, a backup to a
// directory, then a move into the workload cluster (which runs Capstan's managers, installed by
// capstanctl init) and back, then delete --all of the providers it hosted and init of them from
// the release, its image archives imported into the nodes. clusterctl moves no status: the
// managers on each side must derive it again without replacing a Machine.
func TestClusterctlOnARealCluster(t *testing.T) {
	bin := os.Getenv("CAPSTAN_CLUSTERCTL")
	require.NotEmpty(t, bin, "CAPSTAN_CLUSTERCTL names no clusterctl binary: run make e2e-clusterctl, which builds it")
	config := os.Getenv("CAPSTAN_CLUSTERCTL_CONFIG")
	require.NotEmpty(t, config, "CAPSTAN_CLUSTERCTL_CONFIG names no clusterctl.yaml: run make e2e-clusterctl, which writes make release's")
	s := newSuite(t)
	deleted := s.deleteAtEnd(t)
	if !t.Run("Quickstart", func(t *testing.T) { s.t = t; s.timed("quickstart: apply to every node Ready", s.quickstart) }) {
		return
	}
	cc := &upstreamClusterctl{s: s, bin: bin, config: config, home: t.TempDir()}
	t.Run("Clusterctl", func(t *testing.T) {
		s.t = t
		s.timed("upstream clusterctl: describe, get kubeconfig, upgrade plan, backup, move into the cluster and back, delete", cc.run)
	})
	s.runDeleteCluster(t, deleted)
}

// upstreamClusterctl runs clusterctl with a home of its own (no user configuration, no version
// check against GitHub).
type upstreamClusterctl struct {
	s                 *suite
	bin, config, home string
}

// out runs clusterctl with args and returns its combined output, failing the spec on an error.
func (cc *upstreamClusterctl) out(timeout time.Duration, args ...string) string {
	s := cc.s
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	c := exec.CommandContext(ctx, cc.bin, args...)
	c.Env = []string{"HOME=" + cc.home, "XDG_CONFIG_HOME=" + filepath.Join(cc.home, ".config"),
		"CLUSTERCTL_DISABLE_VERSIONCHECK=true", "KUBECONFIG=/nonexistent", "PATH=" + os.Getenv("PATH")}
	out, err := c.CombinedOutput()
	s.t.Logf("clusterctl %s:\n%s", strings.Join(args, " "), out)
	require.NoError(s.t, err, "clusterctl %s", strings.Join(args, " "))
	return string(out)
}

func (cc *upstreamClusterctl) run() {
	s := cc.s
	mgmtKC := s.mgmtKubeconfig()
	cc.read(mgmtKC)

	backup := s.t.TempDir()
	cc.out(5*time.Minute, "move", "--kubeconfig", mgmtKC, "-n", s.ns, "--to-directory", backup)
	_, err := os.Stat(filepath.Join(backup, "Cluster_"+s.ns+"_"+s.name+".yaml"))
	require.NoError(s.t, err, "the backup holds the Cluster")
	back := &clusterv1.Cluster{}
	require.NoError(s.t, s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, back))
	require.False(s.t, ptrTrue(back.Spec.Paused), "the backup resumed the Cluster")

	kc, hosted := s.hostManagers()
	nodes := cc.nodeContainers()
	workers := client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: s.mdKey().Name}
	original, err := s.machines(workers)
	require.NoError(s.t, err)
	machines := cc.machineNames(s.mgmt)

	cc.out(10*time.Minute, "move", "--kubeconfig", mgmtKC, "--to-kubeconfig", kc, "-n", s.ns)
	home := false
	defer func() {
		if !home { // bring it home so the local managers can delete it (the spec failed already)
			if err := s.runCapstanctl("move", "--kubeconfig", kc, "--to-kubeconfig", mgmtKC, "-n", s.ns); err != nil {
				s.t.Logf("moving the cluster back after the failure: %v", err)
			}
		}
	}()
	err = s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, &clusterv1.Cluster{})
	require.True(s.t, apierrors.IsNotFound(err), "the Cluster left the local management plane: %v", err)
	cc.waitForStatus(hosted, machines, nodes, "the hosted managers")

	local := s.mgmt
	s.mgmt = hosted // the specs' helpers now read and patch the cluster where it lives
	func() {
		defer func() { s.mgmt = local }()
		s.patchReplicas(&clusterv1.MachineDeployment{}, s.mdKey(), int32(len(original)+1))
		s.waitForWorkers(len(original)+1, s.controlPlaneCount(), 10*time.Minute)
		machines = cc.machineNames(hosted)
		nodes = cc.nodeContainers()
		cc.out(10*time.Minute, "move", "--kubeconfig", kc, "--to-kubeconfig", mgmtKC, "-n", s.ns)
		home = true
	}()
	localWatch, err := client.NewWithWatch(s.mgmtConfig, client.Options{Scheme: framework.Scheme()})
	require.NoError(s.t, err)
	cc.waitForStatus(localWatch, machines, nodes, "the local managers")
	s.scaleWorkersBack(workers, original)

	cc.out(5*time.Minute, "delete", "--all", "--kubeconfig", kc)
	for _, p := range providers {
		ds := &appsv1.DeploymentList{}
		require.NoError(s.t, hosted.List(s.ctx, ds, client.InNamespace(p.namespace)))
		require.Empty(s.t, ds.Items, "clusterctl delete --all removed %s's manager from the hosting cluster", p.name)
	}
	cc.initFromRelease(kc, hosted)
}

// initFromRelease installs Capstan into the hosting cluster again, this time with clusterctl init
// from make release's repository, the release's image archives imported into its nodes (no
// registry): every manager Deployment becomes Available running the release's image.
// clusterctl init requires cert-manager, which cannot run here; it counts cert-manager as
// installed when its Issuer and Certificate kinds are served, so only those CRDs are created.
func (cc *upstreamClusterctl) initFromRelease(kc string, hosted client.Client) {
	s := cc.s
	archives, err := filepath.Glob(filepath.Join(filepath.Dir(cc.config), "*", "*", "*.tar"))
	require.NoError(s.t, err)
	require.NotEmpty(s.t, archives, "make release writes the images' archives (RELEASE_IMAGES=true)")
	images := map[string]bool{}
	for _, archive := range archives {
		// <provider>/<version>/<name>.tar holds docker.io/capstan/<name>:<version>.
		image := "docker.io/capstan/" + strings.TrimSuffix(filepath.Base(archive), ".tar") + ":" + filepath.Base(filepath.Dir(archive))
		images[image] = true
		for _, node := range s.nodeNames() {
			ctx, cancel := context.WithTimeout(s.ctx, 2*time.Minute)
			require.NoError(s.t, framework.LoadImageArchive(ctx, s.docker, node, archive, image))
			cancel()
		}
	}
	for _, crd := range certManagerKinds() {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
		require.NoError(s.t, err)
		obj := &unstructured.Unstructured{Object: u}
		obj.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
		require.NoError(s.t, client.IgnoreAlreadyExists(hosted.Create(s.ctx, obj)))
	}
	s.waitFor(time.Minute, "cert-manager's kinds to be served", func() (bool, string, error) {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion("cert-manager.io/v1")
		list.SetKind("CertificateList")
		err := hosted.List(s.ctx, list)
		return err == nil, fmt.Sprint(err), nil
	})
	cc.out(10*time.Minute, "init", "--config", cc.config, "--kubeconfig", kc, "--core", "cluster-api", "--bootstrap", "kubeadm",
		"--control-plane", "kubeadm", "--infrastructure", "docker", "--wait-providers", "--wait-provider-timeout", "300")
	for _, p := range providers {
		s.managerPods(hosted, p) // one Deployment, Available
		ds := &appsv1.DeploymentList{}
		require.NoError(s.t, hosted.List(s.ctx, ds, client.InNamespace(p.namespace)))
		image := ds.Items[0].Spec.Template.Spec.Containers[0].Image
		require.True(s.t, images[image], "%s runs %s, an image of the release's archives %v", p.name, image, images)
	}
}

// certManagerKinds are CRDs serving cert-manager's Issuer and Certificate, accepting anything.
func certManagerKinds() []*apiextensionsv1.CustomResourceDefinition {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, k := range []struct{ kind, plural string }{{"Issuer", "issuers"}, {"Certificate", "certificates"}} {
		out = append(out, &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: k.plural + ".cert-manager.io"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "cert-manager.io", Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: k.kind, ListKind: k.kind + "List", Plural: k.plural},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
			},
		})
	}
	return out
}

// read runs the reading verbs against the management plane: describe shows the cluster's tree
// with its conditions, get kubeconfig gives a kubeconfig that reaches the workload cluster, and
// upgrade plan lists every provider of the inventory.
func (cc *upstreamClusterctl) read(mgmtKC string) {
	s := cc.s
	// Nodes Ready come before the control plane's pods pass their readiness probes: the Cluster
	// is Available a few seconds later.
	s.waitFor(3*time.Minute, "the Cluster to be Available", func() (bool, string, error) {
		cl := &clusterv1.Cluster{}
		if err := s.mgmt.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, cl); err != nil {
			return false, "", err
		}
		return conditions.IsTrue(cl, clusterv1.ClusterAvailableCondition), "not Available yet", nil
	})
	out := cc.out(time.Minute, "describe", "cluster", s.name, "-n", s.ns, "--kubeconfig", mgmtKC)
	// Each row: the object's tree position, kind, namespace/name, then its condition.
	for _, row := range []string{
		`Cluster ` + s.ns + `/` + s.name + ` .*True +Available`,
		`─DockerCluster ` + s.ns + `/` + s.name + ` .*True +Ready`,
		`─KubeadmControlPlane ` + s.ns + `/` + s.kcpKey().Name + `, v\S+ .*True +Available`,
		`─Workers`,
		`─MachineDeployment ` + s.ns + `/` + s.mdKey().Name + `, v\S+ .*True +Available`,
	} {
		require.Regexp(s.t, row, out)
	}

	kubeconfig := cc.out(time.Minute, "get", "kubeconfig", s.name, "-n", s.ns, "--kubeconfig", mgmtKC)
	cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(kubeconfig))
	require.NoError(s.t, err)
	wc, err := client.New(cfg, client.Options{Scheme: framework.Scheme()})
	require.NoError(s.t, err)
	nodes := &corev1.NodeList{}
	require.NoError(s.t, wc.List(s.ctx, nodes), "the kubeconfig reaches the workload cluster")
	require.NotEmpty(s.t, nodes.Items)

	out = cc.out(2*time.Minute, "upgrade", "plan", "--config", cc.config, "--kubeconfig", mgmtKC)
	for _, label := range []string{"cluster-api", "bootstrap-kubeadm", "control-plane-kubeadm", "infrastructure-docker"} {
		require.Regexp(s.t, label+` +\S+ +\w+Provider +v\S+ +`, out)
	}
}

// machineNames lists the cluster's Machines in c by name.
func (cc *upstreamClusterctl) machineNames(c client.Client) []string {
	s := cc.s
	list := &clusterv1.MachineList{}
	require.NoError(s.t, c.List(s.ctx, list, client.InNamespace(s.ns), client.MatchingLabels{clusterv1.ClusterNameLabel: s.name}))
	var names []string
	for _, m := range list.Items {
		names = append(names, m.Name)
	}
	slices.Sort(names)
	return names
}

// nodeContainers lists the cluster's node containers by ID: a Machine provisioned again would
// get a new container.
func (cc *upstreamClusterctl) nodeContainers() []string {
	s := cc.s
	cs, err := s.containers()
	require.NoError(s.t, err)
	var ids []string
	for _, c := range cs {
		ids = append(ids, strings.TrimPrefix(c.Names[0], "/")+"="+c.ID)
	}
	slices.Sort(ids)
	return ids
}

// waitForStatus waits until who, managing the moved cluster in c from objects without status,
// has derived it again: the Cluster's infrastructure provisioned and control plane initialized
// and Available, every Machine Running with its Node. No Machine may be added or deleted on any
// watch event meanwhile, and the node containers must be those of before the move: nothing was
// provisioned again.
func (cc *upstreamClusterctl) waitForStatus(c client.WithWatch, machines, nodes []string, who string) {
	s := cc.s
	require.Equal(s.t, machines, cc.machineNames(c), "the moved Machines")
	events := watchMachineEvents(s, c, s.ns)
	s.waitFor(5*time.Minute, who+" to derive the moved cluster's status", func() (bool, string, error) {
		cl := &clusterv1.Cluster{}
		if err := c.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: s.name}, cl); err != nil {
			return false, "", err
		}
		init := cl.Status.Initialization
		if !ptrTrue(init.InfrastructureProvisioned) || !ptrTrue(init.ControlPlaneInitialized) ||
			!conditions.IsTrue(cl, clusterv1.ClusterAvailableCondition) {
			return false, "Cluster initialization " + describeInit(init), nil
		}
		list := &clusterv1.MachineList{}
		if err := c.List(s.ctx, list, client.InNamespace(s.ns), client.MatchingLabels{clusterv1.ClusterNameLabel: s.name}); err != nil {
			return false, "", err
		}
		for _, m := range list.Items {
			if m.Status.Phase != string(clusterv1.MachinePhaseRunning) || !m.Status.NodeRef.IsDefined() {
				return false, "Machine " + m.Name + " is " + m.Status.Phase, nil
			}
		}
		return true, "", nil
	})
	require.Empty(s.t, events.stop(), "no Machine added or deleted while %s derived the status", who)
	require.Equal(s.t, nodes, cc.nodeContainers(), "the node containers of before the move, none created again")
}

func describeInit(init clusterv1.ClusterInitializationStatus) string {
	return "infrastructureProvisioned=" + boolString(init.InfrastructureProvisioned) + " controlPlaneInitialized=" + boolString(init.ControlPlaneInitialized)
}

func boolString(b *bool) string {
	if b == nil {
		return "unset"
	}
	if *b {
		return "true"
	}
	return "false"
}
