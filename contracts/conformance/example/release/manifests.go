package release

// deployment runs the release's manager image. v0.2.0 also serves the conversion webhook: the
// manager issues its own CA and certificate for the Service (Secret example-webhook-service-cert)
// and writes the CA into the CRDs, so no cert-manager is needed.
func deployment(version string) map[string]any {
	labels := map[string]any{"control-plane": Deployment}
	args := []any{"--leader-elect", "--diagnostics-address=:8443", "--health-addr=:9440"}
	ports := []any{
		map[string]any{"name": "metrics", "containerPort": int64(8443), "protocol": "TCP"},
		map[string]any{"name": "healthz", "containerPort": int64(9440), "protocol": "TCP"},
	}
	if withConversion(version) {
		args = append(args, "--webhook-bind-address=:9443", "--webhook-service=$(POD_NAMESPACE)/"+WebhookService)
		ports = append(ports, map[string]any{"name": "webhook", "containerPort": int64(webhookPort), "protocol": "TCP"})
	}
	container := map[string]any{
		"name":            "manager",
		"image":           ImageRepository + ":" + version,
		"imagePullPolicy": "IfNotPresent",
		"args":            args,
		"env": []any{map[string]any{"name": "POD_NAMESPACE", "valueFrom": map[string]any{
			"fieldRef": map[string]any{"fieldPath": "metadata.namespace"}}}},
		"ports": ports,
		"readinessProbe": map[string]any{
			"httpGet":       map[string]any{"path": "/readyz", "port": "healthz"},
			"periodSeconds": int64(5),
		},
		"livenessProbe": map[string]any{
			"httpGet":             map[string]any{"path": "/healthz", "port": "healthz"},
			"initialDelaySeconds": int64(15), "periodSeconds": int64(20),
		},
		"resources": map[string]any{"requests": map[string]any{"cpu": "50m", "memory": "64Mi"}},
		"securityContext": map[string]any{
			"allowPrivilegeEscalation": false,
			"readOnlyRootFilesystem":   true,
			"capabilities":             map[string]any{"drop": []any{"ALL"}},
		},
	}
	return map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata":   map[string]any{"name": Deployment, "namespace": Namespace, "labels": labels},
		"spec": map[string]any{
			"replicas": int64(1),
			"selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{
				"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{
					"serviceAccountName":            serviceAccount,
					"terminationGracePeriodSeconds": int64(10),
					"securityContext": map[string]any{
						"runAsNonRoot": true, "runAsUser": int64(65532),
						"seccompProfile": map[string]any{"type": "RuntimeDefault"},
					},
					"containers": []any{container},
				},
			},
		},
	}
}

// service fronts the conversion webhook.
func service() map[string]any {
	return map[string]any{
		"apiVersion": "v1",
		"kind":       "Service",
		"metadata":   map[string]any{"name": WebhookService, "namespace": Namespace},
		"spec": map[string]any{
			"selector": map[string]any{"control-plane": Deployment},
			"ports": []any{map[string]any{
				"name": "webhook", "port": int64(443), "targetPort": "webhook", "protocol": "TCP",
			}},
		},
	}
}

// clusterTemplate is the release's cluster-template.yaml, in clusterctl's variables: a Cluster
// on an ExampleCluster (no control plane: the example has none) and a MachineDeployment of
// ExampleMachines whose bootstrap data is a plain Secret of the template (no bootstrap provider
// needed). Everything is written out, so no defaulting is relied on.
const clusterTemplate = `apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata:
  name: ${CLUSTER_NAME}
  namespace: ${NAMESPACE}
spec:
  infrastructureRef:
    apiGroup: infrastructure.example.capstan.dev
    kind: ExampleCluster
    name: ${CLUSTER_NAME}
---
apiVersion: infrastructure.example.capstan.dev/v1alpha1
kind: ExampleCluster
metadata:
  name: ${CLUSTER_NAME}
  namespace: ${NAMESPACE}
spec: {}
---
apiVersion: v1
kind: Secret
metadata:
  name: ${CLUSTER_NAME}-bootstrap
  namespace: ${NAMESPACE}
  labels:
    cluster.x-k8s.io/cluster-name: ${CLUSTER_NAME}
type: cluster.x-k8s.io/secret
stringData:
  format: cloud-config
  value: |
    #cloud-config
    runcmd: []
---
apiVersion: infrastructure.example.capstan.dev/v1alpha1
kind: ExampleMachineTemplate
metadata:
  name: ${CLUSTER_NAME}-md-0
  namespace: ${NAMESPACE}
spec:
  template:
    spec: {}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineDeployment
metadata:
  name: ${CLUSTER_NAME}-md-0
  namespace: ${NAMESPACE}
spec:
  clusterName: ${CLUSTER_NAME}
  replicas: ${WORKER_MACHINE_COUNT:=1}
  selector:
    matchLabels:
      cluster.x-k8s.io/cluster-name: ${CLUSTER_NAME}
      cluster.x-k8s.io/deployment-name: ${CLUSTER_NAME}-md-0
  rollout:
    strategy:
      type: RollingUpdate
      rollingUpdate:
        maxSurge: 1
        maxUnavailable: 0
  template:
    metadata:
      labels:
        cluster.x-k8s.io/cluster-name: ${CLUSTER_NAME}
        cluster.x-k8s.io/deployment-name: ${CLUSTER_NAME}-md-0
    spec:
      clusterName: ${CLUSTER_NAME}
      version: ${KUBERNETES_VERSION}
      bootstrap:
        dataSecretName: ${CLUSTER_NAME}-bootstrap
      infrastructureRef:
        apiGroup: infrastructure.example.capstan.dev
        kind: ExampleMachineTemplate
        name: ${CLUSTER_NAME}-md-0
`
