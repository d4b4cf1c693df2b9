package dockercluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conformance"
	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// TestDockerCluster_PassesTheInfraClusterConformanceKit runs the kit third-party providers run
// against the docker provider's DockerCluster, with real load balancer containers.
func TestDockerCluster_PassesTheInfraClusterConformanceKit(t *testing.T) {
	rt := dockerFor(t)
	startController(t, env.Config, rt)
	watched := func(o metav1.Object) {
		labels := o.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[clusterv1.WatchLabel] = rt.Plane()
		o.SetLabels(labels)
	}
	conformance.InfrastructureCluster(t, conformance.Input{
		Client: env.Client,
		GVK:    infrav1.GroupVersion.WithKind("DockerCluster"),
		NewObject: func(namespace, name string) *unstructured.Unstructured {
			dc := &infrav1.DockerCluster{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
			obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(dc)
			require.NoError(t, err)
			u := &unstructured.Unstructured{Object: obj}
			u.SetGroupVersionKind(infrav1.GroupVersion.WithKind("DockerCluster"))
			return u
		},
		Timeout: 2 * time.Minute,
		Prepare: func(f *conformance.Fixture) {
			watched(f.Cluster)
			watched(f.Object)
		},
	})
}
