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

package v1beta1

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	controlplanev1 "capstan.dev/bootstrap-kubeadm/api/controlplane/v1beta2"
	"capstan.dev/contracts/testing/conversionfuzz"
)

// TestKCPStatusDown_DerivesTheLegacyCountersAndReady shows the v1beta2 status as v1beta1 clients
// (e.g. upstream's core and clusterctl at v1beta1) read it: legacy counters from the v1beta2 ones,
// ready as readyReplicas > 0 (upstream), the v1beta2 counters under status.v1beta2.
func TestKCPStatusDown_DerivesTheLegacyCountersAndReady(t *testing.T) {
	in := controlplanev1.KubeadmControlPlaneStatus{
		Initialization: controlplanev1.KubeadmControlPlaneInitializationStatus{ControlPlaneInitialized: ptr.To(true)},
		Replicas:       ptr.To[int32](3), ReadyReplicas: ptr.To[int32](2), AvailableReplicas: ptr.To[int32](1), UpToDateReplicas: ptr.To[int32](3),
		Version:    "v1.37.2",
		Conditions: []metav1.Condition{{Type: "Available", Status: metav1.ConditionTrue}},
	}
	got := kcpStatusDown(&in)
	require.Equal(t, KubeadmControlPlaneStatus{
		Replicas: 3, ReadyReplicas: 2, UpdatedReplicas: 3, UnavailableReplicas: 2, Initialized: true, Ready: true, Version: ptr.To("v1.37.2"),
		V1Beta2: &KubeadmControlPlaneV1Beta2Status{Conditions: in.Conditions,
			ReadyReplicas: ptr.To[int32](2), AvailableReplicas: ptr.To[int32](1), UpToDateReplicas: ptr.To[int32](3)},
	}, got)
	require.False(t, kcpStatusDown(&controlplanev1.KubeadmControlPlaneStatus{Replicas: ptr.To[int32](1)}).Ready, "no ready replica: not ready")
}

// TestKCPStatus_LastRemediationInUpstreamsV1beta1Shape: v1beta2's status.lastRemediation (time,
// *retryCount) reads at v1beta1 as upstream's (timestamp, retryCount) and converts back.
func TestKCPStatus_LastRemediationInUpstreamsV1beta1Shape(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 12, 5, 1, 2, 3, 0, time.UTC))
	hub := &controlplanev1.KubeadmControlPlane{}
	hub.Name = "cp"
	hub.Status.LastRemediation = controlplanev1.LastRemediationStatus{Machine: "cp-abcde", Time: at, RetryCount: ptr.To[int32](0)}

	spoke := &KubeadmControlPlane{}
	require.NoError(t, ConvertHubToKubeadmControlPlane(context.Background(), hub.DeepCopy(), spoke, conversionfuzz.Resolver))
	require.Equal(t, &LastRemediationStatus{Machine: "cp-abcde", Timestamp: at, RetryCount: 0}, spoke.Status.LastRemediation)
	raw, err := json.Marshal(spoke.Status.LastRemediation)
	require.NoError(t, err)
	require.JSONEq(t, `{"machine":"cp-abcde","timestamp":"2026-12-05T01:02:03Z","retryCount":0}`, string(raw))

	spoke.Annotations = nil // as a v1beta1 client that writes it without the recorded v1beta2 object
	back := &controlplanev1.KubeadmControlPlane{}
	require.NoError(t, ConvertKubeadmControlPlaneToHub(context.Background(), spoke, back))
	require.Equal(t, hub.Status.LastRemediation, back.Status.LastRemediation)

	require.Nil(t, kcpStatusDown(&controlplanev1.KubeadmControlPlaneStatus{}).LastRemediation, "no remediation: absent")
}
