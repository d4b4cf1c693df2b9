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

package kubeadmcontrolplane

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	bootstrapv1 "capstan.dev/bootstrap-kubeadm/api/bootstrap/v1beta2"
	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conditions"
)

// TestExternalEtcd_TheControlPlaneNeitherDialsNorGuardsEtcd: with etcd.external the control
// plane waits for the user's etcd Secrets instead of generating an etcd CA, scales to an even
// number of Machines without ever dialling a stacked etcd (every dial would fail here), writes
// no etcd conditions on its Machines (nor gates them on any) and reports EtcdClusterHealthy as upstream does.
func TestExternalEtcd_TheControlPlaneNeitherDialsNorGuardsEtcd(t *testing.T) {
	startController(t)
	f := newFixture(t, func(o *fixtureOptions) {
		o.replicas = 2
		o.kcp = func(k *controlplanev1.KubeadmControlPlane) {
			k.Spec.KubeadmConfigSpec.ClusterConfiguration.Etcd.External = bootstrapv1.ExternalEtcd{
				Endpoints: []string{"https://10.0.0.5:2379"}, CAFile: "/etc/etcd/ca.pem", CertFile: "/etc/etcd/client.pem", KeyFile: "/etc/etcd/client-key.pem",
			}
		}
	})
	f.etcd().mu.Lock()
	f.etcd().dialErr = errors.New("there is no stacked etcd to dial")
	f.etcd().mu.Unlock()

	f.waitCondition(controlplanev1.KubeadmControlPlaneCertificatesAvailableCondition, metav1.ConditionFalse, "c1-etcd, c1-apiserver-etcd-client")
	require.Empty(t, f.machines(), "no Machine before the user's etcd Secrets exist")
	for name, data := range map[string]map[string][]byte{
		"c1-etcd":                  {"tls.crt": []byte("external etcd CA")},
		"c1-apiserver-etcd-client": {"tls.crt": []byte("client"), "tls.key": []byte("client key")},
	} {
		require.NoError(t, env.Client.Create(context.Background(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name}, Data: data}))
	}

	machines := f.growTo(2)
	kcp := f.waitCondition(controlplanev1.KubeadmControlPlaneEtcdClusterHealthyCondition, metav1.ConditionTrue, "etcd is external")
	require.Equal(t, int32(2), ptr.Deref(kcp.Spec.Replicas, 0))
	for _, m := range machines {
		// The health conditions are written: the etcd ones are left out, not yet to come.
		f.waitMachineCondition(m.Name, controlplanev1.KubeadmControlPlaneMachineAPIServerPodHealthyCondition, metav1.ConditionFalse, "does not exist")
		cur := partsOf(t, m)[0]
		for _, c := range []string{controlplanev1.KubeadmControlPlaneMachineEtcdPodHealthyCondition, controlplanev1.KubeadmControlPlaneMachineEtcdMemberHealthyCondition} {
			require.Nil(t, conditions.Get(cur.(conditions.Getter), c), "Machine %s has %s", m.Name, c)
		}
		require.Equal(t, withOwnGates()[:3], cur.(*clusterv1.Machine).Spec.ReadinessGates,
			"Machine %s is gated on its component Pods only: no etcd gate, nothing would ever report it", m.Name)
	}
	f.etcd().mu.Lock()
	defer f.etcd().mu.Unlock()
	require.Empty(t, f.etcd().dialed, "the control plane dialled etcd")
}
