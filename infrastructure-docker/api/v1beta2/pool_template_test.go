package v1beta2_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	infrav1 "capstan.dev/infrastructure-docker/api/v1beta2"
)

// TestDockerMachinePool_AcceptsAnEmptyTemplate applies a DockerMachinePool with
// `spec.template: {}`, as a cluster template that takes every default writes it (capstanctl's
// machinepool flavor does; the e2e MachinePool spec found it refused).
func TestDockerMachinePool_AcceptsAnEmptyTemplate(t *testing.T) {
	ns := env.CreateNamespace(t, "empty-pool-template")
	pool := &infrav1.DockerMachinePool{ObjectMeta: metav1.ObjectMeta{Name: "pool", Namespace: ns}}
	require.NoError(t, env.Client.Create(context.Background(), env.WithField(t, pool, map[string]any{}, "spec", "template")))
}
