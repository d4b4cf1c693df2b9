package movetest

import (
	"context"
	"encoding/base64"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
)

const (
	coreAPI      = "cluster.x-k8s.io/v1beta2"
	infraAPI     = "infrastructure.cluster.x-k8s.io/v1beta2"
	bootstrapAPI = "bootstrap.cluster.x-k8s.io/v1beta2"
	cpAPI        = "controlplane.cluster.x-k8s.io/v1beta2"
	version      = "v1.37.2"
)

// fixture is a namespace of the source holding two workload clusters as the providers
// would have left them, and what must not move.
type fixture struct {
	ns string
	// moves are the objects the move must take.
	moves []*unstructured.Unstructured
	// stays are objects that must stay where they are: in the namespace (not Cluster
	// API objects and not belonging to one) or in another namespace.
	stays []*unstructured.Unstructured
	// pausedBefore are the keys of objects the user paused before the move.
	pausedBefore map[string]bool
}

// def defines one object of the fixture.
type def struct {
	apiVersion, kind, name string
	owners                 []*unstructured.Unstructured
	labels, annotations    map[string]string
	finalizers             []string
	// fields are the top-level fields other than metadata and status (spec, data, type).
	fields map[string]any
	// status is written through the status subresource, as a provider would.
	status map[string]any
}

func key(o *unstructured.Unstructured) string { return o.GetKind() + "/" + o.GetName() }

// newFixture builds, in a new namespace of the source:
//
//	Cluster c1 (status; owned by ConfigMap c1-owner, which does not move)
//	├─ DockerCluster c1 (status)
//	├─ Secrets c1-ca, c1-etcd, c1-proxy, c1-sa; ConfigMap c1-addons
//	├─ DockerMachineTemplates c1-cp, c1-md (paused by the user), KubeadmConfigTemplate c1-md
//	├─ KubeadmControlPlane c1 (status) ─ Machine c1-cp-a (status.nodeRef)
//	│    ├─ DockerMachine c1-cp-a (status), KubeadmConfig c1-cp-a (status) ─ Secret c1-cp-a
//	└─ MachineDeployment c1-md ─ MachineSet c1-md-x ─ Machine c1-md-x-a
//	     ├─ DockerMachine c1-md-x-a, KubeadmConfig c1-md-x-a ─ Secret c1-md-x-a
//	Secret c1-kubeconfig (only labelled with the cluster name)
//	Cluster c2 (paused by the user) ─ DockerCluster c2
//
// and, staying: Secret unrelated, Secret c9-kubeconfig (labelled for a Cluster that is
// not there), ConfigMap c1-owner, and a Cluster c1 with its DockerCluster in another
// namespace.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{ns: source.CreateNamespace(t, "move"), pausedBefore: map[string]bool{}}
	t.Cleanup(func() {
		_ = client.IgnoreNotFound(target.Client.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.ns}}))
	})
	clusterLabel := map[string]string{clusterv1.ClusterNameLabel: "c1"}

	owner := f.create(t, false, def{apiVersion: "v1", kind: "ConfigMap", name: "c1-owner", fields: map[string]any{"data": map[string]any{"k": "v"}}})
	cluster := f.create(t, true, def{apiVersion: coreAPI, kind: "Cluster", name: "c1", owners: []*unstructured.Unstructured{owner},
		labels: map[string]string{"env": "prod"}, finalizers: []string{"cluster.cluster.x-k8s.io"},
		fields: map[string]any{"spec": clusterSpec("c1")},
		status: map[string]any{
			"phase":          "Provisioned",
			"initialization": map[string]any{"infrastructureProvisioned": true, "controlPlaneInitialized": true},
			"conditions":     []any{condition("Available", "True", "Available")},
		}})
	own := []*unstructured.Unstructured{cluster}
	f.create(t, true, def{apiVersion: infraAPI, kind: "DockerCluster", name: "c1", owners: own, labels: clusterLabel,
		finalizers: []string{"dockercluster.infrastructure.cluster.x-k8s.io"},
		fields:     map[string]any{"spec": map[string]any{"controlPlaneEndpoint": map[string]any{"host": "127.0.0.1", "port": int64(32768)}}},
		status:     map[string]any{"initialization": map[string]any{"provisioned": true}, "conditions": []any{condition("Ready", "True", "Ready")}}})
	for _, purpose := range []string{"ca", "etcd", "proxy", "sa"} {
		f.create(t, true, secretDef("c1-"+purpose, own, clusterLabel, map[string]string{"tls.crt": "cert " + purpose, "tls.key": "key " + purpose}))
	}
	f.create(t, true, def{apiVersion: "v1", kind: "ConfigMap", name: "c1-addons", owners: own, fields: map[string]any{"data": map[string]any{"cni": "flannel"}}})
	f.create(t, true, secretDef("c1-kubeconfig", nil, clusterLabel, map[string]string{"value": "kubeconfig of c1"}))

	cpTemplate := f.create(t, true, def{apiVersion: infraAPI, kind: "DockerMachineTemplate", name: "c1-cp", owners: own,
		fields: map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"bootstrapTimeout": "5m"}}}}})
	mdTemplate := f.create(t, true, def{apiVersion: infraAPI, kind: "DockerMachineTemplate", name: "c1-md", owners: own,
		annotations: map[string]string{clusterv1.PausedAnnotation: ""},
		fields:      map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{}}}}})
	f.pausedBefore[key(mdTemplate)] = true
	configTemplate := f.create(t, true, def{apiVersion: bootstrapAPI, kind: "KubeadmConfigTemplate", name: "c1-md", owners: own,
		fields: map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"format": "cloud-config"}}}}})

	kcp := f.create(t, true, def{apiVersion: cpAPI, kind: "KubeadmControlPlane", name: "c1", owners: own, labels: clusterLabel,
		finalizers: []string{"kubeadm.controlplane.cluster.x-k8s.io"},
		fields: map[string]any{"spec": map[string]any{"version": version, "replicas": int64(1),
			"machineTemplate": map[string]any{"spec": map[string]any{"infrastructureRef": ref(infraAPI, "DockerMachineTemplate", cpTemplate.GetName())}}}},
		status: map[string]any{"replicas": int64(1), "readyReplicas": int64(1), "version": version,
			"initialization": map[string]any{"controlPlaneInitialized": true}}})
	f.machine(t, kcp, "c1-cp-a", map[string]string{clusterv1.ClusterNameLabel: "c1", "cluster.x-k8s.io/control-plane": ""})

	mdLabels := map[string]string{clusterv1.ClusterNameLabel: "c1", clusterv1.MachineDeploymentNameLabel: "c1-md"}
	templateSpec := map[string]any{"clusterName": "c1", "version": version,
		"bootstrap":         map[string]any{"configRef": ref(bootstrapAPI, "KubeadmConfigTemplate", configTemplate.GetName())},
		"infrastructureRef": ref(infraAPI, "DockerMachineTemplate", mdTemplate.GetName())}
	workers := map[string]any{"clusterName": "c1", "replicas": int64(1),
		"selector": map[string]any{"matchLabels": stringMap(mdLabels)},
		"template": map[string]any{"metadata": map[string]any{"labels": stringMap(mdLabels)}, "spec": templateSpec}}
	md := f.create(t, true, def{apiVersion: coreAPI, kind: "MachineDeployment", name: "c1-md", owners: own, labels: mdLabels,
		fields: map[string]any{"spec": workers}, status: map[string]any{"replicas": int64(1), "readyReplicas": int64(1)}})
	ms := f.create(t, true, def{apiVersion: coreAPI, kind: "MachineSet", name: "c1-md-x", owners: []*unstructured.Unstructured{md}, labels: mdLabels,
		fields: map[string]any{"spec": runtime.DeepCopyJSONValue(workers)}, status: map[string]any{"replicas": int64(1)}})
	f.machine(t, ms, "c1-md-x-a", mdLabels)

	paused := f.create(t, true, def{apiVersion: coreAPI, kind: "Cluster", name: "c2",
		fields: map[string]any{"spec": withPaused(clusterSpec("c2"))}})
	f.pausedBefore[key(paused)] = true
	f.create(t, true, def{apiVersion: infraAPI, kind: "DockerCluster", name: "c2", owners: []*unstructured.Unstructured{paused},
		fields: map[string]any{"spec": map[string]any{}}})

	f.create(t, false, secretDef("unrelated", nil, nil, map[string]string{"password": "stays"}))
	f.create(t, false, secretDef("c9-kubeconfig", nil, map[string]string{clusterv1.ClusterNameLabel: "c9"}, map[string]string{"value": "x"}))

	elsewhere := &fixture{ns: source.CreateNamespace(t, "elsewhere")}
	other := elsewhere.create(t, false, def{apiVersion: coreAPI, kind: "Cluster", name: "c1", fields: map[string]any{"spec": clusterSpec("c1")}})
	elsewhere.create(t, false, def{apiVersion: infraAPI, kind: "DockerCluster", name: "c1", owners: []*unstructured.Unstructured{other},
		fields: map[string]any{"spec": map[string]any{}}})
	f.stays = append(f.stays, elsewhere.stays...)
	return f
}

// machine creates a Machine owned by owner, its DockerMachine and KubeadmConfig, and the
// KubeadmConfig's bootstrap data Secret, with the status their providers write.
func (f *fixture) machine(t *testing.T, owner *unstructured.Unstructured, name string, labels map[string]string) {
	t.Helper()
	m := f.create(t, true, def{apiVersion: coreAPI, kind: "Machine", name: name, owners: []*unstructured.Unstructured{owner}, labels: labels,
		finalizers: []string{"machine.cluster.x-k8s.io"},
		fields: map[string]any{"spec": map[string]any{"clusterName": "c1", "version": version,
			"bootstrap":         map[string]any{"configRef": ref(bootstrapAPI, "KubeadmConfig", name), "dataSecretName": name},
			"infrastructureRef": ref(infraAPI, "DockerMachine", name)}},
		status: map[string]any{"phase": "Running", "nodeRef": map[string]any{"name": name},
			"initialization": map[string]any{"bootstrapDataSecretCreated": true, "infrastructureProvisioned": true},
			"conditions":     []any{condition("Ready", "True", "Ready")}}})
	own := []*unstructured.Unstructured{m}
	f.create(t, true, def{apiVersion: infraAPI, kind: "DockerMachine", name: name, owners: own, labels: labels,
		finalizers: []string{"dockermachine.infrastructure.cluster.x-k8s.io"},
		fields:     map[string]any{"spec": map[string]any{"providerID": "docker:////" + name}},
		status: map[string]any{"initialization": map[string]any{"provisioned": true},
			"addresses": []any{map[string]any{"type": "InternalIP", "address": "172.18.0.3"}}}})
	config := f.create(t, true, def{apiVersion: bootstrapAPI, kind: "KubeadmConfig", name: name, owners: own, labels: labels,
		fields: map[string]any{"spec": map[string]any{"format": "cloud-config"}},
		status: map[string]any{"dataSecretName": name, "initialization": map[string]any{"dataSecretCreated": true}}})
	f.create(t, true, secretDef(name, []*unstructured.Unstructured{config}, map[string]string{clusterv1.ClusterNameLabel: "c1"},
		map[string]string{"value": "#cloud-config for " + name, "format": "cloud-config"}))
}

// create creates d in the source and writes its status; moves says which list it joins.
func (f *fixture) create(t *testing.T, moves bool, d def) *unstructured.Unstructured {
	t.Helper()
	o := &unstructured.Unstructured{Object: map[string]any{}}
	maps.Copy(o.Object, d.fields)
	o.SetAPIVersion(d.apiVersion)
	o.SetKind(d.kind)
	o.SetNamespace(f.ns)
	o.SetName(d.name)
	o.SetLabels(d.labels)
	o.SetAnnotations(d.annotations)
	o.SetFinalizers(d.finalizers)
	var refs []metav1.OwnerReference
	for i, owner := range d.owners {
		refs = append(refs, metav1.OwnerReference{APIVersion: owner.GetAPIVersion(), Kind: owner.GetKind(), Name: owner.GetName(),
			UID: owner.GetUID(), Controller: ptr.To(i == 0), BlockOwnerDeletion: ptr.To(true)})
	}
	o.SetOwnerReferences(refs)
	require.NoError(t, source.Client.Create(context.Background(), o), "creating %s", key(o))
	if d.status != nil {
		envtest.UpdateStatus(t, source.Client, o, func() { o.Object["status"] = runtime.DeepCopyJSONValue(d.status) })
	}
	if moves {
		f.moves = append(f.moves, o)
	} else {
		f.stays = append(f.stays, o)
	}
	return o
}

func secretDef(name string, owners []*unstructured.Unstructured, labels, data map[string]string) def {
	encoded := map[string]any{}
	for k, v := range data {
		encoded[k] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	return def{apiVersion: "v1", kind: "Secret", name: name, owners: owners, labels: labels,
		fields: map[string]any{"type": string(clusterv1.ClusterSecretType), "data": encoded}}
}

func clusterSpec(name string) map[string]any {
	return map[string]any{
		"infrastructureRef": ref(infraAPI, "DockerCluster", name),
		"controlPlaneRef":   ref(cpAPI, "KubeadmControlPlane", name),
	}
}

func withPaused(spec map[string]any) map[string]any {
	spec["paused"] = true
	return spec
}

func ref(apiVersion, kind, name string) map[string]any {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return map[string]any{"apiGroup": gv.Group, "kind": kind, "name": name}
}

func condition(condType, status, reason string) map[string]any {
	return map[string]any{"type": condType, "status": status, "reason": reason, "message": "",
		"lastTransitionTime": time.Now().Add(-time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)}
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
