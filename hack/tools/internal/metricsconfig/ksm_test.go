//go:build metrics

package metricsconfig

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"capstan.dev/contracts/envtest"
)

var env *envtest.Environment

// TestMain starts an API server with every provider's CRDs, as a management cluster has them
// (the core's are always installed).
func TestMain(m *testing.M) {
	os.Exit(envtest.Run(m, envtest.Options{CRDDirectoryPaths: []string{
		filepath.Join(repoRoot, "bootstrap-kubeadm/config/crd/bases"),
		filepath.Join(repoRoot, "infrastructure-docker/config/crd/bases"),
	}}, &env))
}

// conditionTime is the lastTransitionTime of every condition the fixtures write.
const conditionTime = "2026-01-02T03:04:05Z"

// fleet holds one object of every kind the configuration covers, each with the status the
// test writes through the status subresource (a create drops it). NAMESPACE is replaced.
const fleet = `
apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata: {name: fleet-a, namespace: NAMESPACE}
spec:
  controlPlaneEndpoint: {host: 10.0.0.1, port: 6443}
  controlPlaneRef: {apiGroup: controlplane.cluster.x-k8s.io, kind: KubeadmControlPlane, name: fleet-a-cp}
  infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerCluster, name: fleet-a}
status:
  phase: Provisioned
  conditions: [{type: Available, status: "True", reason: Available, lastTransitionTime: TIME, message: ""}]
---
apiVersion: controlplane.cluster.x-k8s.io/v1beta2
kind: KubeadmControlPlane
metadata: {name: fleet-a-cp, namespace: NAMESPACE, labels: {cluster.x-k8s.io/cluster-name: fleet-a}}
spec:
  replicas: 3
  version: v1.37.2
  rollout: {strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}}}
  machineTemplate:
    spec:
      infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerMachineTemplate, name: fleet-a-cp}
status:
  replicas: 3
  readyReplicas: 3
  availableReplicas: 3
  upToDateReplicas: 2
  conditions:
  - {type: EtcdClusterHealthy, status: "True", reason: Healthy, lastTransitionTime: TIME, message: ""}
  - {type: RollingOut, status: "True", reason: RollingOut, lastTransitionTime: TIME, message: ""}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: Machine
metadata:
  name: fleet-a-cp-0
  namespace: NAMESPACE
  labels: {cluster.x-k8s.io/cluster-name: fleet-a, cluster.x-k8s.io/control-plane-name: fleet-a-cp}
spec:
  clusterName: fleet-a
  version: v1.37.2
  providerID: docker:////fleet-a-cp-0
  failureDomain: fd-1
  bootstrap: {configRef: {apiGroup: bootstrap.cluster.x-k8s.io, kind: KubeadmConfig, name: fleet-a-cp-0}}
  infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerMachine, name: fleet-a-cp-0}
status:
  phase: Running
  nodeRef: {name: fleet-a-cp-0-node}
  addresses: [{type: InternalIP, address: 172.18.0.3}]
  certificatesExpiryDate: "2027-01-02T03:04:05Z"
  nodeInfo:
    machineID: m
    systemUUID: s
    bootID: b
    kernelVersion: 6.1.0
    osImage: Debian GNU/Linux 13
    containerRuntimeVersion: containerd://2.1.0
    kubeletVersion: v1.37.2
    kubeProxyVersion: v1.37.2
    operatingSystem: linux
    architecture: amd64
  conditions:
  - {type: EtcdMemberHealthy, status: "True", reason: Healthy, lastTransitionTime: TIME, message: ""}
  - {type: Ready, status: "True", reason: Ready, lastTransitionTime: TIME, message: ""}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: Machine
metadata: {name: fleet-a-md-0-abcde, namespace: NAMESPACE, labels: {cluster.x-k8s.io/cluster-name: fleet-a}}
spec:
  clusterName: fleet-a
  version: v1.37.2
  bootstrap: {configRef: {apiGroup: bootstrap.cluster.x-k8s.io, kind: KubeadmConfig, name: fleet-a-md-0-abcde}}
  infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerMachine, name: fleet-a-md-0-abcde}
status:
  phase: Provisioning
  conditions:
  - {type: HealthCheckSucceeded, status: "False", reason: UnhealthyNode, lastTransitionTime: TIME, message: ""}
  - {type: OwnerRemediated, status: "False", reason: WaitingForRemediation, lastTransitionTime: TIME, message: ""}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineDeployment
metadata: {name: fleet-a-md-0, namespace: NAMESPACE}
spec:
  clusterName: fleet-a
  replicas: 3
  selector: {matchLabels: {cluster.x-k8s.io/deployment-name: fleet-a-md-0}}
  rollout: {strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}}
  template:
    metadata: {labels: {cluster.x-k8s.io/deployment-name: fleet-a-md-0}}
    spec:
      clusterName: fleet-a
      version: v1.37.2
      bootstrap: {configRef: {apiGroup: bootstrap.cluster.x-k8s.io, kind: KubeadmConfigTemplate, name: fleet-a-md-0}}
      infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerMachineTemplate, name: fleet-a-md-0}
status:
  phase: ScalingUp
  replicas: 3
  readyReplicas: 2
  availableReplicas: 2
  upToDateReplicas: 1
  conditions: [{type: RollingOut, status: "True", reason: RollingOut, lastTransitionTime: TIME, message: ""}]
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineSet
metadata: {name: fleet-a-md-0-xyz, namespace: NAMESPACE}
spec:
  clusterName: fleet-a
  replicas: 2
  selector: {matchLabels: {cluster.x-k8s.io/set-name: fleet-a-md-0-xyz}}
  template:
    metadata: {labels: {cluster.x-k8s.io/set-name: fleet-a-md-0-xyz}}
    spec:
      clusterName: fleet-a
      version: v1.37.2
      bootstrap: {configRef: {apiGroup: bootstrap.cluster.x-k8s.io, kind: KubeadmConfigTemplate, name: fleet-a-md-0}}
      infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerMachineTemplate, name: fleet-a-md-0}
status:
  replicas: 2
  readyReplicas: 1
  availableReplicas: 1
  upToDateReplicas: 2
  conditions: [{type: MachinesReady, status: "False", reason: NotReady, lastTransitionTime: TIME, message: ""}]
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachinePool
metadata: {name: fleet-a-mp-0, namespace: NAMESPACE}
spec:
  clusterName: fleet-a
  replicas: 4
  template:
    spec:
      clusterName: fleet-a
      version: v1.37.2
      bootstrap: {configRef: {apiGroup: bootstrap.cluster.x-k8s.io, kind: KubeadmConfig, name: fleet-a-mp-0}}
      infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerMachinePool, name: fleet-a-mp-0}
status:
  phase: ScalingUp
  replicas: 2
  conditions: [{type: ScalingUp, status: "True", reason: ScalingUp, lastTransitionTime: TIME, message: ""}]
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineHealthCheck
metadata: {name: fleet-a-mhc, namespace: NAMESPACE}
spec:
  clusterName: fleet-a
  selector: {matchLabels: {cluster.x-k8s.io/deployment-name: fleet-a-md-0}}
  remediation: {triggerIf: {unhealthyLessThanOrEqualTo: 2}}
status:
  expectedMachines: 3
  currentHealthy: 2
  remediationsAllowed: 1
  conditions: [{type: RemediationAllowed, status: "True", reason: RemediationAllowed, lastTransitionTime: TIME, message: ""}]
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: ClusterClass
metadata: {name: fleet-class, namespace: NAMESPACE}
spec:
  controlPlane: {templateRef: {apiVersion: controlplane.cluster.x-k8s.io/v1beta2, kind: KubeadmControlPlaneTemplate, name: fleet-cp}}
  infrastructure: {templateRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: DockerClusterTemplate, name: fleet}}
status:
  conditions: [{type: VariablesReady, status: "True", reason: VariablesReady, lastTransitionTime: TIME, message: ""}]
---
apiVersion: bootstrap.cluster.x-k8s.io/v1beta2
kind: KubeadmConfig
metadata: {name: fleet-a-cp-0, namespace: NAMESPACE, labels: {cluster.x-k8s.io/cluster-name: fleet-a}}
spec: {format: cloud-config}
status:
  conditions: [{type: DataSecretAvailable, status: "True", reason: Available, lastTransitionTime: TIME, message: ""}]
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: DockerCluster
metadata: {name: fleet-a, namespace: NAMESPACE, labels: {cluster.x-k8s.io/cluster-name: fleet-a}}
spec: {}
status:
  conditions: [{type: Ready, status: "True", reason: Ready, lastTransitionTime: TIME, message: ""}]
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: DockerMachine
metadata: {name: fleet-a-cp-0, namespace: NAMESPACE, labels: {cluster.x-k8s.io/cluster-name: fleet-a}}
spec: {}
status:
  conditions: [{type: Ready, status: "True", reason: Ready, lastTransitionTime: TIME, message: ""}]
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: DevCluster
metadata: {name: fleet-b, namespace: NAMESPACE, labels: {cluster.x-k8s.io/cluster-name: fleet-b}}
spec: {backend: {docker: {}}}
status:
  conditions: [{type: Ready, status: "False", reason: NotReady, lastTransitionTime: TIME, message: ""}]
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: DevMachine
metadata: {name: fleet-b-0, namespace: NAMESPACE, labels: {cluster.x-k8s.io/cluster-name: fleet-b}}
spec: {backend: {docker: {}}}
status:
  conditions: [{type: Ready, status: "Unknown", reason: Unknown, lastTransitionTime: TIME, message: ""}]
---
apiVersion: addons.cluster.x-k8s.io/v1beta2
kind: ClusterResourceSet
metadata: {name: fleet-crs, namespace: NAMESPACE}
spec:
  clusterSelector: {matchLabels: {cni: fleet}}
  resources: [{kind: ConfigMap, name: fleet-cni}]
status:
  conditions: [{type: ResourcesApplied, status: "True", reason: Applied, lastTransitionTime: TIME, message: ""}]
---
apiVersion: ipam.cluster.x-k8s.io/v1beta2
kind: IPAddressClaim
metadata: {name: fleet-a-ip, namespace: NAMESPACE, labels: {cluster.x-k8s.io/cluster-name: fleet-a}}
spec:
  poolRef: {apiGroup: ipam.example.com, kind: InClusterIPPool, name: pool}
status:
  conditions: [{type: Ready, status: "False", reason: WaitingForPool, lastTransitionTime: TIME, message: ""}]
---
apiVersion: runtime.cluster.x-k8s.io/v1beta2
kind: ExtensionConfig
metadata: {name: fleet-extension-NAMESPACE}
spec:
  clientConfig: {url: "https://127.0.0.1:1"}
status:
  conditions: [{type: Discovered, status: "False", reason: DiscoveryFailed, lastTransitionTime: TIME, message: ""}]
`

func TestKubeStateMetrics_ExportsCapstanObjectsUnderUpstreamNames(t *testing.T) {
	ksm := os.Getenv("CAPSTAN_KUBE_STATE_METRICS")
	require.NotEmpty(t, ksm, "CAPSTAN_KUBE_STATE_METRICS names no kube-state-metrics binary: run make test-metrics, which builds it")
	ns := env.CreateNamespace(t, "metrics")
	created := createFleet(t, ns)

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, env.KubeConfig, 0o600))
	configFile, err := filepath.Abs(filepath.Join(repoRoot, ConfigPath))
	require.NoError(t, err)
	metricsAddr, telemetryAddr := envtest.FreeLoopbackAddr(t), envtest.FreeLoopbackAddr(t)
	startKubeStateMetrics(t, ksm, "--custom-resource-state-only", "--custom-resource-state-config-file="+configFile,
		"--kubeconfig="+kubeconfig, "--host=127.0.0.1", "--port="+port(metricsAddr),
		"--telemetry-host=127.0.0.1", "--telemetry-port="+port(telemetryAddr))

	// Every kind has a status_condition series once kube-state-metrics has listed them all.
	var samples []sample
	require.Eventually(t, func() bool {
		samples = scrape(t, "http://"+metricsAddr+"/metrics")
		for _, k := range Kinds {
			if len(find(samples, "capi_"+strings.ToLower(k.Kind)+"_status_condition", map[string]string{"namespace": nsOf(k.Kind, ns)})) == 0 {
				return false
			}
		}
		return true
	}, 2*time.Minute, 250*time.Millisecond, "kube-state-metrics never exported a condition of every kind")

	lastTransition := float64(mustTime(t, conditionTime).Unix())
	base := func(name string, more ...string) map[string]string {
		l := map[string]string{"namespace": ns, "name": name}
		for i := 0; i+1 < len(more); i += 2 {
			l[more[i]] = more[i+1]
		}
		return l
	}
	for _, c := range []struct {
		metric string
		labels map[string]string
		want   float64
	}{
		{"capi_cluster_status_phase", base("fleet-a", "phase", "Provisioned"), 1},
		{"capi_cluster_status_phase", base("fleet-a", "phase", "Provisioning"), 0},
		{"capi_cluster_info", base("fleet-a", "control_plane_endpoint_host", "10.0.0.1", "control_plane_endpoint_port", "6443",
			"control_plane_reference_kind", "KubeadmControlPlane", "control_plane_reference_name", "fleet-a-cp",
			"infrastructure_reference_kind", "DockerCluster", "infrastructure_reference_name", "fleet-a"), 1},
		{"capi_cluster_spec_paused", base("fleet-a"), 0},
		{"capi_cluster_status_condition", base("fleet-a", "type", "Available", "status", "True"), 1},
		{"capi_cluster_status_condition_last_transition_time", base("fleet-a", "type", "Available", "status", "True"), lastTransition},
		{"capi_cluster_created", base("fleet-a"), float64(created["Cluster/fleet-a"])},

		{"capi_machine_status_phase", base("fleet-a-cp-0", "cluster_name", "fleet-a", "phase", "Running"), 1},
		{"capi_machine_status_phase", base("fleet-a-cp-0", "phase", "Provisioning"), 0},
		{"capi_machine_status_phase", base("fleet-a-md-0-abcde", "phase", "Provisioning"), 1},
		{"capi_machine_info", base("fleet-a-cp-0", "cluster_name", "fleet-a", "version", "v1.37.2", "provider_id", "docker:////fleet-a-cp-0",
			"failure_domain", "fd-1", "control_plane_name", "fleet-a-cp", "bootstrap_reference_kind", "KubeadmConfig",
			"infrastructure_reference_kind", "DockerMachine", "kubelet_version", "v1.37.2", "kernel_version", "6.1.0",
			"os_image", "Debian GNU/Linux 13", "container_runtime_version", "containerd://2.1.0"), 1},
		{"capi_machine_status_noderef", base("fleet-a-cp-0", "node_name", "fleet-a-cp-0-node"), 1},
		{"capi_machine_addresses", base("fleet-a-cp-0", "type", "InternalIP", "address", "172.18.0.3"), 1},
		{"capi_machine_status_certificatesexpirydate", base("fleet-a-cp-0"), float64(mustTime(t, "2027-01-02T03:04:05Z").Unix())},
		{"capi_machine_status_condition", base("fleet-a-cp-0", "type", "EtcdMemberHealthy", "status", "True"), 1},
		{"capi_machine_status_condition", base("fleet-a-md-0-abcde", "type", "OwnerRemediated", "status", "False"), 1},
		{"capi_machine_created", base("fleet-a-cp-0"), float64(created["Machine/fleet-a-cp-0"])},

		{"capi_machinedeployment_spec_replicas", base("fleet-a-md-0", "cluster_name", "fleet-a"), 3},
		{"capi_machinedeployment_status_replicas", base("fleet-a-md-0"), 3},
		{"capi_machinedeployment_status_replicas_ready", base("fleet-a-md-0"), 2},
		{"capi_machinedeployment_status_replicas_available", base("fleet-a-md-0"), 2},
		{"capi_machinedeployment_status_replicas_uptodate", base("fleet-a-md-0"), 1},
		{"capi_machinedeployment_spec_strategy_rollingupdate_max_surge", base("fleet-a-md-0"), 1},
		{"capi_machinedeployment_spec_strategy_rollingupdate_max_unavailable", base("fleet-a-md-0"), 0},
		{"capi_machinedeployment_status_phase", base("fleet-a-md-0", "phase", "ScalingUp"), 1},
		{"capi_machinedeployment_info", base("fleet-a-md-0", "version", "v1.37.2", "bootstrap_reference_kind", "KubeadmConfigTemplate",
			"infrastructure_reference_name", "fleet-a-md-0"), 1},

		{"capi_machineset_spec_replicas", base("fleet-a-md-0-xyz", "cluster_name", "fleet-a"), 2},
		{"capi_machineset_status_replicas_ready", base("fleet-a-md-0-xyz"), 1},
		{"capi_machineset_status_replicas_uptodate", base("fleet-a-md-0-xyz"), 2},

		{"capi_machinepool_spec_replicas", base("fleet-a-mp-0", "cluster_name", "fleet-a"), 4},
		{"capi_machinepool_status_replicas", base("fleet-a-mp-0"), 2},
		{"capi_machinepool_status_phase", base("fleet-a-mp-0", "phase", "ScalingUp"), 1},
		{"capi_machinepool_info", base("fleet-a-mp-0", "bootstrap_configuration_reference_kind", "KubeadmConfig",
			"infrastructure_reference_kind", "DockerMachinePool"), 1},

		{"capi_kubeadmcontrolplane_spec_replicas", base("fleet-a-cp", "cluster_name", "fleet-a"), 3},
		{"capi_kubeadmcontrolplane_status_replicas", base("fleet-a-cp"), 3},
		{"capi_kubeadmcontrolplane_status_replicas_uptodate", base("fleet-a-cp"), 2},
		{"capi_kubeadmcontrolplane_spec_strategy_rollingupdate_max_surge", base("fleet-a-cp"), 1},
		{"capi_kubeadmcontrolplane_info", base("fleet-a-cp", "version", "v1.37.2"), 1},
		{"capi_kubeadmcontrolplane_owner", base("fleet-a-cp", "owner_kind", "Cluster", "owner_name", "fleet-a", "owner_is_controller", "true"), 1},
		{"capi_kubeadmcontrolplane_status_condition", base("fleet-a-cp", "type", "EtcdClusterHealthy", "status", "True"), 1},

		{"capi_machinehealthcheck_status_expected_machines", base("fleet-a-mhc", "cluster_name", "fleet-a"), 3},
		{"capi_machinehealthcheck_status_current_healthy", base("fleet-a-mhc"), 2},
		{"capi_machinehealthcheck_status_remediations_allowed", base("fleet-a-mhc"), 1},
		{"capi_machinehealthcheck_info", base("fleet-a-mhc", "remediation_triggerif_unhealthylessthanorequalto", "2"), 1},

		{"capi_clusterclass_status_condition", base("fleet-class", "type", "VariablesReady", "status", "True"), 1},
		{"capi_kubeadmconfig_status_condition", base("fleet-a-cp-0", "cluster_name", "fleet-a", "type", "DataSecretAvailable", "status", "True"), 1},
		{"capi_dockercluster_status_condition", base("fleet-a", "cluster_name", "fleet-a", "type", "Ready", "status", "True"), 1},
		{"capi_devmachine_status_condition", base("fleet-b-0", "cluster_name", "fleet-b", "type", "Ready", "status", "Unknown"), 1},
		{"capi_ipaddressclaim_status_condition", base("fleet-a-ip", "type", "Ready", "status", "False"), 1},
	} {
		got := find(samples, c.metric, c.labels)
		require.Len(t, got, 1, "%s%v: want one series, have %v", c.metric, c.labels, got)
		require.Equal(t, c.want, got[0].value, "%s%v", c.metric, got[0].labels)
	}
	// The KubeadmControlPlane's cluster_name comes from its Cluster owner reference.
	require.Len(t, find(samples, "capi_kubeadmcontrolplane_status_replicas", base("fleet-a-cp", "cluster_name", "fleet-a")), 1)

	// Every metric the dashboard queries has a series here, so no panel is empty by design.
	exported := map[string]bool{}
	for _, s := range samples {
		exported[s.name] = true
	}
	for _, name := range dashboardMetrics(t) {
		require.True(t, exported[name], "the dashboard queries %s, which kube-state-metrics does not export for the fleet", name)
	}
	// And every label a panel matches or groups on is one those series carry.
	labelsOf := map[string]map[string]bool{}
	for _, s := range samples {
		if labelsOf[s.name] == nil {
			labelsOf[s.name] = map[string]bool{}
		}
		for l := range s.labels {
			labelsOf[s.name][l] = true
		}
	}
	for _, expr := range dashboardExprs(t) {
		matchers, grouping := labelsIn(expr)
		for metric, labels := range matchers {
			for _, l := range labels {
				require.True(t, labelsOf[metric][l], "the dashboard matches %s on %s, a label it does not carry: %s", metric, l, expr)
			}
		}
		for _, l := range grouping {
			found := false
			for _, metric := range metricNamesIn(expr) {
				found = found || labelsOf[metric][l]
			}
			require.True(t, found, "the dashboard groups on %s, which none of the expression's metrics carries: %s", l, expr)
		}
	}
}

// createFleet creates the fleet's objects in ns, writes each one's status, and returns each
// object's creation time (Unix seconds) by Kind/name.
func createFleet(t *testing.T, ns string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	created := map[string]int64{}
	var clusterUID string
	doc := strings.NewReplacer("NAMESPACE", ns, "TIME", conditionTime).Replace(fleet)
	for _, part := range strings.Split(doc, "\n---\n") {
		obj := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal([]byte(part), &obj.Object))
		status := obj.Object["status"]
		delete(obj.Object, "status")
		if obj.GetKind() == "KubeadmControlPlane" { // as the topology or a user's Cluster sets it
			obj.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "Cluster",
				Name: "fleet-a", UID: types.UID(clusterUID), Controller: ptr.To(true)}})
		}
		require.NoError(t, env.Client.Create(ctx, obj), "creating %s %s", obj.GetKind(), obj.GetName())
		if obj.GetKind() == "ExtensionConfig" { // cluster-scoped
			t.Cleanup(func() { _ = env.Client.Delete(context.Background(), obj) })
		}
		if obj.GetKind() == "Cluster" {
			clusterUID = string(obj.GetUID())
		}
		created[obj.GetKind()+"/"+obj.GetName()] = obj.GetCreationTimestamp().Unix()
		obj.Object["status"] = status
		require.NoError(t, env.Client.Status().Update(ctx, obj), "writing the status of %s %s", obj.GetKind(), obj.GetName())
	}
	return created
}

func nsOf(kind, ns string) string {
	if kind == "ExtensionConfig" {
		return ""
	}
	return ns
}

// startKubeStateMetrics runs kube-state-metrics until the test ends.
func startKubeStateMetrics(t *testing.T, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	logFile, err := os.Create(filepath.Join(t.TempDir(), "kube-state-metrics.log"))
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			log, _ := os.ReadFile(logFile.Name())
			t.Logf("kube-state-metrics log:\n%s", tail(string(log), 60))
		}
		_ = logFile.Close()
	})
}

// sample is one series of the text exposition format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// scrape reads the metrics endpoint; nil while it does not answer yet.
func scrape(t *testing.T, url string) []sample {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	var out []sample
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseSample(line)
		require.NoError(t, err, line)
		out = append(out, s)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return out
}

// parseSample parses `name{k="v",...} value`; label values with escaped quotes are not
// expected from the fixtures.
func parseSample(line string) (sample, error) {
	s := sample{labels: map[string]string{}}
	rest := line
	if i := strings.IndexByte(line, '{'); i >= 0 {
		j := strings.LastIndexByte(line, '}')
		if j < i {
			return s, fmt.Errorf("unbalanced braces")
		}
		s.name, rest = line[:i], line[j+1:]
		body := line[i+1 : j]
		for body != "" {
			eq := strings.Index(body, `="`)
			if eq < 0 {
				return s, fmt.Errorf("label without value in %q", body)
			}
			end := strings.Index(body[eq+2:], `"`)
			if end < 0 {
				return s, fmt.Errorf("unterminated label value in %q", body)
			}
			s.labels[body[:eq]] = body[eq+2 : eq+2+end]
			body = strings.TrimPrefix(body[eq+2+end+1:], ",")
		}
	} else {
		sp := strings.IndexByte(line, ' ')
		if sp < 0 {
			return s, fmt.Errorf("no value")
		}
		s.name, rest = line[:sp], line[sp:]
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return s, fmt.Errorf("no value")
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	s.value = v
	return s, err
}

// find returns the series of metric whose labels include labels.
func find(samples []sample, metric string, labels map[string]string) []sample {
	var out []sample
	for _, s := range samples {
		if s.name != metric {
			continue
		}
		match := true
		for k, v := range labels {
			if s.labels[k] != v {
				match = false
				break
			}
		}
		if match {
			out = append(out, s)
		}
	}
	return out
}

func port(addr string) string { return addr[strings.LastIndexByte(addr, ':')+1:] }

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return ts
}

func tail(s string, lines int) string {
	parts := strings.Split(s, "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}
