package metricsconfig

import (
	"sort"
	"strings"
)

// Kind is one kind's entry in the table: its API group, the path of its cluster_name label and
// its metrics beyond the name, namespace and uid labels every series carries.
type Kind struct {
	Group, Kind string
	// ClusterName is the field path of the cluster_name label; nil for kinds that belong to
	// no single Cluster (Cluster itself, ClusterClass, ClusterResourceSet, ExtensionConfig).
	ClusterName []string
	Metrics     func(noun string) []metric
}

const (
	coreGroup         = "cluster.x-k8s.io"
	bootstrapGroup    = "bootstrap.cluster.x-k8s.io"
	controlPlaneGroup = "controlplane.cluster.x-k8s.io"
	infraGroup        = "infrastructure.cluster.x-k8s.io"
	addonsGroup       = "addons.cluster.x-k8s.io"
	ipamGroup         = "ipam.cluster.x-k8s.io"
	runtimeGroup      = "runtime.cluster.x-k8s.io"
	version           = "v1beta2"
)

var (
	specClusterName  = p("spec.clusterName")
	labelClusterName = []string{"metadata", "labels", "cluster.x-k8s.io/cluster-name"}
	// A KubeadmControlPlane has no spec.clusterName; the Cluster owns it.
	ownerClusterName = []string{"metadata", "ownerReferences", "[kind=Cluster]", "name"}
)

// Kinds are the kinds upstream's configuration covers, in its order (by group, then kind).
var Kinds = []Kind{
	{Group: addonsGroup, Kind: "ClusterResourceSet", Metrics: conditions},
	{Group: bootstrapGroup, Kind: "KubeadmConfig", ClusterName: labelClusterName, Metrics: func(n string) []metric {
		return join(lifecycle(n), owner(), conditions(n), infoOf(n, map[string]string{"name": "metadata.name"}))
	}},
	{Group: coreGroup, Kind: "Cluster", Metrics: func(n string) []metric {
		return join(lifecycle(n), conditions(n), specPaused(n),
			infoOf(n, map[string]string{
				"control_plane_endpoint_host":   "spec.controlPlaneEndpoint.host",
				"control_plane_endpoint_port":   "spec.controlPlaneEndpoint.port",
				"control_plane_reference_kind":  "spec.controlPlaneRef.kind",
				"control_plane_reference_name":  "spec.controlPlaneRef.name",
				"infrastructure_reference_kind": "spec.infrastructureRef.kind",
				"infrastructure_reference_name": "spec.infrastructureRef.name",
				"topology_classref_name":        "spec.topology.classRef.name",
				"topology_classref_namespace":   "spec.topology.classRef.namespace",
				"topology_version":              "spec.topology.version",
			}),
			phase("clusters", "Pending", "Provisioning", "Provisioned", "Deleting", "Failed", "Unknown"))
	}},
	{Group: coreGroup, Kind: "ClusterClass", Metrics: func(n string) []metric {
		return join(lifecycle(n), owner(), conditions(n), infoOf(n, map[string]string{"name": "metadata.name"}))
	}},
	{Group: coreGroup, Kind: "Machine", ClusterName: specClusterName, Metrics: func(n string) []metric {
		return join(lifecycle(n), owner(), conditions(n),
			infoOf(n, map[string]string{
				"bootstrap_reference_kind":      "spec.bootstrap.configRef.kind",
				"bootstrap_reference_name":      "spec.bootstrap.configRef.name",
				"container_runtime_version":     "status.nodeInfo.containerRuntimeVersion",
				"control_plane_name":            "metadata.labels.cluster\\.x-k8s\\.io/control-plane-name",
				"failure_domain":                "spec.failureDomain",
				"infrastructure_reference_kind": "spec.infrastructureRef.kind",
				"infrastructure_reference_name": "spec.infrastructureRef.name",
				"kernel_version":                "status.nodeInfo.kernelVersion",
				"kube_proxy_version":            "status.nodeInfo.kubeProxyVersion",
				"kubelet_version":               "status.nodeInfo.kubeletVersion",
				"os_image":                      "status.nodeInfo.osImage",
				"provider_id":                   "spec.providerID",
				"version":                       "spec.version",
			}),
			[]metric{
				infoMetric("addresses", "The addresses of a machine, one series each.", p("status.addresses"),
					map[string]string{"address": "address", "type": "type"}),
				infoMetric("status_noderef", "The Node a machine is linked to.", p("status.nodeRef"),
					map[string]string{"node_name": "name"}),
				gaugeMetric("status_certificatesexpirydate", "Unix time at which the certificates of a control plane machine expire.",
					p("status.certificatesExpiryDate"), true),
			},
			phase("machines", "Pending", "Provisioning", "Provisioned", "Running", "Updating", "Deleting", "Deleted", "Failed", "Unknown"))
	}},
	{Group: coreGroup, Kind: "MachineDeployment", ClusterName: specClusterName, Metrics: func(n string) []metric {
		return join(lifecycle(n), owner(), conditions(n), specPaused(n), templateInfo(n, "bootstrap_reference"),
			specReplicas(n, false), statusReplicas(n), rollingUpdate(n, true),
			phase("machinedeployments", "ScalingUp", "ScalingDown", "Running", "Failed", "Unknown"))
	}},
	{Group: coreGroup, Kind: "MachineHealthCheck", ClusterName: specClusterName, Metrics: func(n string) []metric {
		return join(lifecycle(n), owner(), conditions(n),
			infoOf(n, map[string]string{
				"remediation_triggerif_unhealthyinrange":           "spec.remediation.triggerIf.unhealthyInRange",
				"remediation_triggerif_unhealthylessthanorequalto": "spec.remediation.triggerIf.unhealthyLessThanOrEqualTo",
			}),
			[]metric{
				gaugeMetric("status_current_healthy", "The number of healthy machines a machinehealthcheck counts.", p("status.currentHealthy"), true),
				gaugeMetric("status_expected_machines", "The number of machines a machinehealthcheck selects.", p("status.expectedMachines"), true),
				gaugeMetric("status_remediations_allowed", "The number of further remediations a machinehealthcheck allows now.", p("status.remediationsAllowed"), true),
			})
	}},
	{Group: coreGroup, Kind: "MachinePool", ClusterName: specClusterName, Metrics: func(n string) []metric {
		// Capstan's MachinePool phases (upstream's list names MachineDeployment's).
		return join(lifecycle(n), owner(), conditions(n), templateInfo(n, "bootstrap_configuration_reference"),
			specReplicas(n, false), statusReplicas(n),
			phase("machinepools", "Pending", "Provisioning", "Provisioned", "Running", "ScalingUp", "ScalingDown", "Scaling", "Deleting", "Failed", "Unknown"))
	}},
	{Group: coreGroup, Kind: "MachineSet", ClusterName: specClusterName, Metrics: func(n string) []metric {
		return join(lifecycle(n), owner(), conditions(n), templateInfo(n, "bootstrap_reference"),
			specReplicas(n, true), statusReplicas(n))
	}},
	{Group: controlPlaneGroup, Kind: "KubeadmControlPlane", ClusterName: ownerClusterName, Metrics: func(n string) []metric {
		return join(lifecycle(n), owner(), conditions(n), infoOf(n, map[string]string{"version": "spec.version"}),
			specReplicas(n, false), statusReplicas(n), rollingUpdate(n, false))
	}},
	{Group: infraGroup, Kind: "DevCluster", ClusterName: labelClusterName, Metrics: conditions},
	{Group: infraGroup, Kind: "DevMachine", ClusterName: labelClusterName, Metrics: conditions},
	{Group: infraGroup, Kind: "DockerCluster", ClusterName: labelClusterName, Metrics: conditions},
	{Group: infraGroup, Kind: "DockerMachine", ClusterName: labelClusterName, Metrics: conditions},
	{Group: ipamGroup, Kind: "IPAddressClaim", ClusterName: labelClusterName, Metrics: conditions},
	{Group: runtimeGroup, Kind: "ExtensionConfig", Metrics: conditions},
}

func (k Kind) resource() resource {
	noun := strings.ToLower(k.Kind)
	labels := map[string][]string{"name": p("metadata.name"), "namespace": p("metadata.namespace"), "uid": p("metadata.uid")}
	if k.ClusterName != nil {
		labels["cluster_name"] = k.ClusterName
	}
	metrics := k.Metrics(noun)
	sort.SliceStable(metrics, func(i, j int) bool { return metrics[i].Name < metrics[j].Name })
	return resource{
		GroupVersionKind: gvk{Group: k.Group, Version: version, Kind: k.Kind},
		MetricNamePrefix: "capi_" + noun,
		LabelsFromPath:   labels,
		Metrics:          metrics,
	}
}

// p splits a dotted field path; `\.` is a dot inside a key (a label or annotation name).
func p(path string) []string {
	const dot = "\x00"
	parts := strings.Split(strings.ReplaceAll(path, `\.`, dot), ".")
	for i := range parts {
		parts[i] = strings.ReplaceAll(parts[i], dot, ".")
	}
	return parts
}

func labelPaths(labels map[string]string) map[string][]string {
	out := make(map[string][]string, len(labels))
	for label, path := range labels {
		out[label] = p(path)
	}
	return out
}

func join(groups ...[]metric) []metric {
	var out []metric
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func gaugeMetric(name, help string, path []string, nilIsZero bool) metric {
	return metric{Name: name, Help: help, Each: each{Type: "Gauge", Gauge: &gauge{Path: path, NilIsZero: nilIsZero}}}
}

func infoMetric(name, help string, path []string, labels map[string]string) metric {
	return metric{Name: name, Help: help, Each: each{Type: "Info", Info: &info{Path: path, LabelsFromPath: labelPaths(labels)}}}
}

func infoOf(noun string, labels map[string]string) []metric {
	return []metric{infoMetric("info", "Information about a "+noun+".", nil, labels)}
}

// lifecycle: the paused annotation (its value as the paused_value label) and the creation time.
func lifecycle(noun string) []metric {
	return []metric{
		{Name: "annotation_paused", Help: "Whether the cluster.x-k8s.io/paused annotation pauses the reconciliation of a " + noun + ".",
			Each: each{Type: "Info", Info: &info{
				Path:           []string{"metadata", "annotations", "cluster.x-k8s.io/paused"},
				LabelsFromPath: map[string][]string{"paused_value": {}},
			}}},
		gaugeMetric("created", "Unix creation timestamp.", p("metadata.creationTimestamp"), false),
	}
}

func owner() []metric {
	return []metric{infoMetric("owner", "The owner references of an object, one series each.", p("metadata.ownerReferences"),
		map[string]string{"owner_is_controller": "controller", "owner_kind": "kind", "owner_name": "name", "owner_uid": "uid"})}
}

// conditions: the v1beta2 conditions (status.conditions) as a state set by type, and when each
// last changed.
func conditions(noun string) []metric {
	return []metric{
		{Name: "status_condition", Help: "The conditions of a " + noun + ", by type: 1 for the status it has.",
			Each: each{Type: "StateSet", StateSet: &stateSet{
				Path: p("status.conditions"), ValueFrom: p("status"), LabelName: "status",
				List: []string{"True", "False", "Unknown"}, LabelsFromPath: map[string][]string{"type": p("type")},
			}}},
		{Name: "status_condition_last_transition_time", Help: "Unix time at which each condition of a " + noun + " last changed status.",
			Each: each{Type: "Gauge", Gauge: &gauge{
				Path: p("status.conditions"), ValueFrom: p("lastTransitionTime"),
				LabelsFromPath: map[string][]string{"type": p("type"), "status": p("status")},
			}}},
	}
}

func specPaused(noun string) []metric {
	return []metric{gaugeMetric("spec_paused", "Whether spec.paused pauses the reconciliation of a "+noun+".", p("spec.paused"), true)}
}

func phase(plural string, phases ...string) []metric {
	return []metric{{Name: "status_phase", Help: "The current phase of the " + plural + ": 1 for the phase each is in.",
		Each: each{Type: "StateSet", StateSet: &stateSet{Path: p("status.phase"), LabelName: "phase", List: phases}}}}
}

// templateInfo is the info metric of a kind that stamps Machines from spec.template;
// MachinePool's bootstrap labels are named bootstrap_configuration_reference_*, as upstream's.
func templateInfo(noun, bootstrapLabel string) []metric {
	labels := map[string]string{
		bootstrapLabel + "_kind":        "spec.template.spec.bootstrap.configRef.kind",
		bootstrapLabel + "_name":        "spec.template.spec.bootstrap.configRef.name",
		"infrastructure_reference_kind": "spec.template.spec.infrastructureRef.kind",
		"infrastructure_reference_name": "spec.template.spec.infrastructureRef.name",
		"version":                       "spec.template.spec.version",
	}
	if noun == "machinepool" {
		labels["failure_domain"] = "spec.template.spec.failureDomain"
	}
	return infoOf(noun, labels)
}

func specReplicas(noun string, nilIsZero bool) []metric {
	return []metric{gaugeMetric("spec_replicas", "The desired number of machines of a "+noun+".", p("spec.replicas"), nilIsZero)}
}

func statusReplicas(noun string) []metric {
	return []metric{
		gaugeMetric("status_replicas", "The number of machines of a "+noun+".", p("status.replicas"), true),
		gaugeMetric("status_replicas_available", "The number of available machines of a "+noun+".", p("status.availableReplicas"), true),
		gaugeMetric("status_replicas_ready", "The number of ready machines of a "+noun+".", p("status.readyReplicas"), true),
		gaugeMetric("status_replicas_uptodate", "The number of up-to-date machines of a "+noun+".", p("status.upToDateReplicas"), true),
	}
}

// rollingUpdate: maxSurge for both, maxUnavailable for MachineDeployments only (a
// KubeadmControlPlane has none).
func rollingUpdate(noun string, maxUnavailable bool) []metric {
	out := []metric{gaugeMetric("spec_strategy_rollingupdate_max_surge",
		"How many machines a rolling update of a "+noun+" may create above the desired number.",
		p("spec.rollout.strategy.rollingUpdate.maxSurge"), false)}
	if maxUnavailable {
		out = append(out, gaugeMetric("spec_strategy_rollingupdate_max_unavailable",
			"How many machines of a "+noun+" a rolling update may leave unavailable.",
			p("spec.rollout.strategy.rollingUpdate.maxUnavailable"), false))
	}
	return out
}
