//go:build clusterctl

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

package interop

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"capstan.dev/contracts/envtest"
	"capstan.dev/core/internal/capstanctl/cmd"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/capstanctl/release"
)

// writeRelease writes make release's repository at v into dir (a second version beside the
// first, when called again) and returns its clusterctl.yaml.
func writeRelease(t *testing.T, dir, v string) string {
	t.Helper()
	_, err := release.Write(context.Background(), dir, v, nil) // no image archives: nothing here loads them
	require.NoError(t, err)
	return filepath.Join(dir, release.ConfigFile)
}

// capstanctlInit installs Capstan's components at version into e with capstanctl init, which writes
// clusterctl's inventory, and returns e's kubeconfig file.
func capstanctlInit(t *testing.T, e *envtest.Environment) string {
	t.Helper()
	kc := ctltest.KubeconfigFile(t, e)
	stdout, stderr, code := ctltest.Run(t, cmd.Execute, "init", "--kubeconfig", kc, "--image-tag", version)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	return kc
}

// Upstream clusterctl's describe reads a Capstan Cluster as it reads upstream's: the Cluster,
// its infrastructure, its control plane with its Machine and its workers' MachineDeployment with
// theirs, each row with the condition clusterctl shows for its kind (Available, Ready) and,
// where that is not True, the reason and message the providers wrote. get kubeconfig prints
// the Cluster's kubeconfig Secret.
func TestClusterctl_DescribeAndGetKubeconfigReadACapstanCluster(t *testing.T) {
	config := writeRelease(t, t.TempDir(), version)
	kc := capstanctlInit(t, env)
	w := newWorkload(t, env)
	home := t.TempDir()

	out, err := runClusterctl(t, home, "describe", "cluster", "c1", "-n", w.ns, "--config", config, "--kubeconfig", kc)
	require.NoError(t, err)
	// Each row: the object's tree position, kind, namespace/name (and version), replica counts
	// where the kind has them, then its condition's status, reason, age and message.
	for _, row := range []string{
		`Cluster NS/c1 +True +Available +\S+ *\n`,
		`├─DockerCluster NS/c1 +True +Ready +\S+ *\n`,
		`├─KubeadmControlPlane NS/c1, v1.37.2 +1/1 +1 +1 +1 +True +Available +\S+ *\n`,
		`│ └─Machine NS/c1-cp-0, v1.37.2 .* True +Ready +\S+ *\n`,
		`│   └─DockerMachine NS/c1-cp-0 *\n`,
		`└─Workers *\n`,
		`  └─MachineDeployment NS/c1-md, v1.37.2 +1/1 +0 +0 +1 +False +NotAvailable +\S+ +0 available replicas, at least 1 required *\n`,
		`    └─Machine NS/c1-md-0-a, v1.37.2 .* False +NotReady +\S+ +Node c1-md-0-a is not Ready *\n`,
		`      └─DockerMachine NS/c1-md-0-a *\n`,
	} {
		require.Regexp(t, `\n`+strings.ReplaceAll(row, "NS", regexp.QuoteMeta(w.ns)), out)
	}

	out, err = runClusterctl(t, home, "get", "kubeconfig", "c1", "-n", w.ns, "--config", config, "--kubeconfig", kc)
	require.NoError(t, err)
	require.Equal(t, w.kubeconfig+"\n", out, "the Secret's value and a newline")
}
