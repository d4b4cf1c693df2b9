package dockercluster

import (
	"testing"

	"github.com/stretchr/testify/require"

	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// The load balancer's image is <imageRepository>/haproxy:<imageTag>, as in upstream's Docker
// provider: imageRepository is where haproxy comes from, not the image itself.
func TestLoadBalancerImage_AppendsHAProxyToTheRepository(t *testing.T) {
	for _, tc := range []struct {
		lb   infrav1.ImageMeta
		want string
	}{
		{infrav1.ImageMeta{}, "capstan/haproxy:latest"},
		{infrav1.ImageMeta{ImageTag: "2.6"}, "capstan/haproxy:2.6"},
		{infrav1.ImageMeta{ImageRepository: "kindest", ImageTag: "v20230606-42a2262b"}, "kindest/haproxy:v20230606-42a2262b"},
		{infrav1.ImageMeta{ImageRepository: "localhost:5000"}, "localhost:5000/haproxy:latest"},
		{infrav1.ImageMeta{ImageRepository: "registry.local:5000/mirror"}, "registry.local:5000/mirror/haproxy:latest"},
	} {
		dc := &infrav1.DockerCluster{Spec: infrav1.DockerClusterSpec{DockerClusterBackendSpec: infrav1.DockerClusterBackendSpec{LoadBalancer: infrav1.DockerLoadBalancer{ImageMeta: tc.lb}}}}
		require.Equal(t, tc.want, loadBalancerImage(dc), "%+v", tc.lb)
	}
}
