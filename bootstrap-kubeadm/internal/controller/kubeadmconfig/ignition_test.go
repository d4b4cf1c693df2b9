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
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	"capstan.dev/bootstrap-kubeadm/internal/kubeadm"
)

// ignitionData is what a node gets from Ignition bootstrap data: the files decoded from their
// data URLs, and the units.
type ignitionData struct {
	nodeData
	units map[string]bool // name: enabled
}

func readIgnitionData(t *testing.T, cfg *bootstrapv1.KubeadmConfig) ignitionData {
	t.Helper()
	s := &corev1.Secret{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: cfg.Namespace, Name: cfg.Status.DataSecretName}, s))
	var doc struct {
		Ignition struct{ Version string } `json:"ignition"`
		Storage  struct {
			Files []struct {
				Path     string `json:"path"`
				Contents struct {
					Source string `json:"source"`
				} `json:"contents"`
			} `json:"files"`
		} `json:"storage"`
		Systemd struct {
			Units []struct {
				Name    string `json:"name"`
				Enabled *bool  `json:"enabled"`
			} `json:"units"`
		} `json:"systemd"`
	}
	require.NoError(t, json.Unmarshal(s.Data["value"], &doc), "the data is an Ignition config (JSON)")
	require.Equal(t, "2.3.0", doc.Ignition.Version)
	d := ignitionData{nodeData: nodeData{secret: s, files: map[string]string{}}, units: map[string]bool{}}
	for _, f := range doc.Storage.Files {
		header, body, ok := strings.Cut(strings.TrimPrefix(f.Contents.Source, "data:"), ",")
		require.True(t, ok && strings.HasPrefix(f.Contents.Source, "data:"), "%s: a data URL", f.Path)
		if strings.HasSuffix(header, ";base64") {
			b, err := base64.StdEncoding.DecodeString(body)
			require.NoError(t, err)
			d.files[f.Path] += string(b)
			continue
		}
		text, err := url.PathUnescape(body)
		require.NoError(t, err)
		d.files[f.Path] += text
	}
	for _, u := range doc.Systemd.Units {
		d.units[u.Name] = ptr.Deref(u.Enabled, false)
	}
	return d
}

func ignitionFormat(additionalConfig string) func(*bootstrapv1.KubeadmConfig) {
	return func(c *bootstrapv1.KubeadmConfig) {
		c.Spec.Format = bootstrapv1.Ignition
		c.Spec.Files = []bootstrapv1.File{{Path: "/etc/from-secret", Permissions: "0600",
			ContentFrom: bootstrapv1.FileSource{Secret: bootstrapv1.SecretFileSource{Name: "node-files", Key: "conf"}}}}
		c.Spec.Ignition.ContainerLinuxConfig.AdditionalConfig = additionalConfig
	}
}

// TestIgnition_InitJoinAndWorkerGetFormatIgnitionData: with spec.format ignition, the first
// control plane Machine, a joining one and a worker each get a data Secret with format
// "ignition" holding an Ignition config: the kubeadm file at /etc/kubeadm.yml, /etc/kubeadm.sh
// running kubeadm init or join, the enabled kubeadm.service, the certificates of control plane
// nodes only, the file whose content comes from a Secret, and additionalConfig merged; what
// additionalConfig holds that the data cannot carry is a Warning Event.
func TestIgnition_InitJoinAndWorkerGetFormatIgnitionData(t *testing.T) {
	ctx := context.Background()
	startController(t)
	f := newFixture(t)
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "node-files", Namespace: f.ns},
		Data: map[string][]byte{"conf": []byte("from the Secret\n")}}))
	const clc = "systemd:\n  units:\n    - name: hello.service\n      enabled: true\n      contents: \"[Service]\\nExecStart=/bin/true\\n\"\nnetworkd:\n  units:\n    - name: 00-eth0.network\n"

	_, cp0 := f.newMachine(t, "cp-0", true, ignitionFormat(clc))
	check := func(cfg *bootstrapv1.KubeadmConfig, verb string) ignitionData {
		t.Helper()
		got := waitDataSecret(t, cfg)
		d := readIgnitionData(t, got)
		require.Equal(t, "ignition", string(d.secret.Data["format"]))
		require.Contains(t, d.files["/etc/kubeadm.sh"], "echo pre "+cfg.Name+"\n")
		require.Contains(t, d.files["/etc/kubeadm.sh"], "\nkubeadm "+verb+" --config /etc/kubeadm.yml\n")
		require.Contains(t, d.files["/etc/kubeadm.sh"], "echo success > /run/cluster-api/bootstrap-success.complete\n")
		require.Equal(t, "from the Secret\n", d.files["/etc/from-secret"])
		require.True(t, d.units["kubeadm.service"], "kubeadm.service is enabled")
		require.True(t, d.units["hello.service"], "additionalConfig's unit is merged")
		return d
	}
	d := check(cp0, "init")
	require.Contains(t, d.files["/etc/kubeadm.yml"], "kind: InitConfiguration")
	f.requireClusterCertificates(t, d.nodeData)
	require.Eventually(t, func() bool {
		list := &eventsv1.EventList{}
		if err := env.Client.List(ctx, list, client.InNamespace(f.ns)); err != nil {
			return false
		}
		for _, e := range list.Items {
			if e.Regarding.Name == "cp-0" && e.Reason == ReasonIgnitionConfigIgnored && strings.Contains(e.Note, "section networkd is not carried") {
				return true
			}
		}
		return false
	}, 10*time.Second, 100*time.Millisecond, "a Warning Event names the section not carried")

	f.initializeControlPlane(t)
	_, cp1 := f.newMachine(t, "cp-1", true, ignitionFormat(clc))
	d = check(cp1, "join")
	f.requireClusterCertificates(t, d.nodeData)
	var join kubeadm.JoinConfiguration
	require.NoError(t, yaml.UnmarshalStrict([]byte(strings.TrimPrefix(d.files["/etc/kubeadm.yml"], "---\n")), &join))
	require.NotNil(t, join.ControlPlane, "joins as a control plane node")

	_, worker := f.newMachine(t, "worker-0", false, ignitionFormat(clc))
	d = check(worker, "join")
	for path := range pkiFiles {
		require.NotContains(t, d.files, path, "a worker gets no cluster keys")
	}
	var workerJoin kubeadm.JoinConfiguration
	require.NoError(t, yaml.UnmarshalStrict([]byte(strings.TrimPrefix(d.files["/etc/kubeadm.yml"], "---\n")), &workerJoin))
	require.Nil(t, workerJoin.ControlPlane)
}

// TestIgnition_StrictAdditionalConfigThatCannotBeCarriedWritesNoData: with strict, a section the
// data cannot carry keeps the data Secret from being written, and the condition names it.
func TestIgnition_StrictAdditionalConfigThatCannotBeCarriedWritesNoData(t *testing.T) {
	startController(t)
	f := newFixture(t)
	_, cfg := f.newMachine(t, "cp-0", true, func(c *bootstrapv1.KubeadmConfig) {
		c.Spec.Format = bootstrapv1.Ignition
		c.Spec.Ignition.ContainerLinuxConfig = bootstrapv1.ContainerLinuxConfig{AdditionalConfig: "etcd:\n  name: x\n", Strict: ptr.To(true)}
	})
	got := waitWaiting(t, cfg, "The bootstrap data cannot be rendered: ignition.containerLinuxConfig.additionalConfig: section etcd is not carried")
	require.Empty(t, got.Status.DataSecretName)
}
