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

package kubeadmconfig

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

// templateFiles are a go-template inline, one from a Secret and a file without contentFormat
// whose template text must be written as it is.
func templateFiles(c *bootstrapv1.KubeadmConfig) {
	c.Spec.Files = []bootstrapv1.File{
		{Path: "/etc/capstan/version", ContentFormat: bootstrapv1.FileContentFormatGoTemplate, Content: "kubernetes={{ .KubernetesVersion }}"},
		{Path: "/etc/motd", ContentFormat: bootstrapv1.FileContentFormatGoTemplate, ContentFrom: bootstrapv1.FileSource{
			Secret: bootstrapv1.SecretFileSource{Name: "motd", Key: "motd"}}},
		{Path: "/etc/capstan/verbatim", Content: "{{ .KubernetesVersion }}"},
	}
}

// TestFiles_GoTemplatesRenderWithTheMachinesOrTheControlPlanesVersion: files with contentFormat
// go-template are rendered with the Machine's version on a control plane Machine and with the
// control plane's spec.version on a worker (here a KubeadmControlPlane one minor ahead of the
// worker's Machine, as in an upgrade), as upstream renders them; the controller runs as the
// user its RBAC markers grant, which reads the KubeadmControlPlane and its CRD.
func TestFiles_GoTemplatesRenderWithTheMachinesOrTheControlPlanesVersion(t *testing.T) {
	user := env.UserFromRBACMarkers(t, "capstan-kubeadmconfig-template-test", "controller.go", "../../../rbac.go")
	startController(t, func(o *controllerOptions) { o.restConfig = user })
	ctx := context.Background()
	f := newFixture(t, func(c *clusterv1.Cluster) {
		c.Spec.ControlPlaneRef = clusterv1.ContractVersionedObjectReference{
			APIGroup: controlplanev1.GroupVersion.Group, Kind: "KubeadmControlPlane", Name: "c1-control-plane"}
	})
	require.NoError(t, env.Client.Create(ctx, &controlplanev1.KubeadmControlPlane{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "c1-control-plane"},
		Spec: controlplanev1.KubeadmControlPlaneSpec{
			Replicas: ptr.To[int32](1),
			Version:  "v1.38.0",
			MachineTemplate: controlplanev1.KubeadmControlPlaneMachineTemplate{Spec: controlplanev1.KubeadmControlPlaneMachineTemplateSpec{
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DockerMachineTemplate", Name: "cp"},
			}},
		},
	}))
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "motd"},
		Data:       map[string][]byte{"motd": []byte("joined at {{ .KubernetesVersion }}\n")},
	}))

	_, cp := f.newMachine(t, "cp-0", true, templateFiles)
	d := readData(t, waitDataSecret(t, cp))
	require.Equal(t, "kubernetes=1.37.2", d.files["/etc/capstan/version"], "a control plane Machine renders with its own version")
	require.Equal(t, "joined at 1.37.2\n", d.files["/etc/motd"])
	require.Equal(t, "{{ .KubernetesVersion }}", d.files["/etc/capstan/verbatim"], "a file without contentFormat is written as it is")

	f.initializeControlPlane(t)
	_, worker := f.newMachine(t, "worker-0", false, templateFiles)
	d = readData(t, waitDataSecret(t, worker))
	require.Equal(t, "kubernetes=1.38.0", d.files["/etc/capstan/version"], "a worker renders with the control plane's spec.version")
	require.Equal(t, "joined at 1.38.0\n", d.files["/etc/motd"])
	require.Equal(t, "{{ .KubernetesVersion }}", d.files["/etc/capstan/verbatim"])
}

// TestFiles_AGoTemplateThatCannotRenderNamesTheFileAndWritesNoData: a template error is a
// condition naming the file and what the data holds, no data Secret is written, and fixing the
// content brings the data.
func TestFiles_AGoTemplateThatCannotRenderNamesTheFileAndWritesNoData(t *testing.T) {
	startController(t)
	f := newFixture(t)
	_, cfg := f.newMachine(t, "cp-0", true, func(c *bootstrapv1.KubeadmConfig) {
		c.Spec.Files = []bootstrapv1.File{
			{Path: "/etc/plain", Content: "plain"},
			{Path: "/etc/capstan/release", ContentFormat: bootstrapv1.FileContentFormatGoTemplate, Content: "release={{ .Release }}"},
		}
	})
	got := waitWaiting(t, cfg, `spec.files[1] (/etc/capstan/release): its go-template cannot be rendered`)
	require.Contains(t, conditionMessage(got), "the template data holds {{ .KubernetesVersion }} only (1.37.2 here)")
	require.Empty(t, got.Status.DataSecretName)
	err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: cfg.Name}, &corev1.Secret{})
	require.True(t, apierrors.IsNotFound(err), "no data Secret for a template that cannot be rendered: %v", err)

	got.Spec.Files[1].Content = "release={{ .KubernetesVersion }}"
	require.NoError(t, env.Client.Update(context.Background(), got))
	d := readData(t, waitDataSecret(t, cfg))
	require.Equal(t, "release=1.37.2", d.files["/etc/capstan/release"])
}

func conditionMessage(c *bootstrapv1.KubeadmConfig) string {
	for _, cond := range c.Status.Conditions {
		if cond.Type == bootstrapv1.KubeadmConfigDataSecretAvailableCondition {
			return cond.Message
		}
	}
	return ""
}
