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
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
	"capstan.dev/contracts/testing/conversionfuzz"
)

var derivedAt = metav1.NewTime(time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC))

func provisioningCluster() *clusterv1.Cluster {
	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}}
	c.Status.Conditions = []metav1.Condition{
		{Type: clusterv1.ClusterAvailableCondition, Status: metav1.ConditionFalse, Reason: "NotAvailable", Message: "ControlPlaneAvailable: not yet", LastTransitionTime: derivedAt},
		{Type: clusterv1.ClusterInfrastructureReadyCondition, Status: metav1.ConditionTrue, Reason: "Ready", LastTransitionTime: derivedAt},
		{Type: clusterv1.ClusterControlPlaneInitializedCondition, Status: metav1.ConditionFalse, Reason: "WaitingForControlPlaneInitialized", Message: "Waiting for the control plane", LastTransitionTime: derivedAt},
		{Type: clusterv1.ClusterRemoteConnectionProbeCondition, Status: metav1.ConditionFalse, Reason: "ProbeFailed", LastTransitionTime: derivedAt},
	}
	return c
}

// TestDerivedConditions_V1beta1ReadersSeeReadyFromTheV1beta2Conditions: a v1beta1 read of a
// Cluster the v1beta2 controllers own shows upstream's v1beta1 conditions (Ready first) derived
// from the v1beta2 ones, with a severity for False ones; v1beta2 types without a v1beta1
// counterpart (RemoteConnectionProbe) are not shown there.
func TestDerivedConditions_V1beta1ReadersSeeReadyFromTheV1beta2Conditions(t *testing.T) {
	spoke := &Cluster{}
	require.NoError(t, ConvertHubToCluster(context.Background(), provisioningCluster(), spoke, conversionfuzz.Resolver))
	require.Equal(t, Conditions{
		{Type: "Ready", Status: corev1.ConditionFalse, Severity: ConditionSeverityWarning, Reason: "NotAvailable", Message: "ControlPlaneAvailable: not yet", LastTransitionTime: derivedAt},
		{Type: "ControlPlaneInitialized", Status: corev1.ConditionFalse, Severity: ConditionSeverityInfo, Reason: "WaitingForControlPlaneInitialized", Message: "Waiting for the control plane", LastTransitionTime: derivedAt},
		{Type: "InfrastructureReady", Status: corev1.ConditionTrue, Reason: "Ready", LastTransitionTime: derivedAt},
	}, spoke.Status.Conditions)
	require.Len(t, spoke.Status.V1Beta2.Conditions, 4, "the v1beta2 conditions are still under status.v1beta2")
}

// TestDerivedConditions_NeverStored: a v1beta1 client that writes back what it read does not
// store the derived list (here, with nothing else v1beta2 cannot hold, it records nothing at
// all), so the next read derives afresh from the current v1beta2 conditions.
func TestDerivedConditions_NeverStored(t *testing.T) {
	ctx := context.Background()
	spoke := &Cluster{}
	require.NoError(t, ConvertHubToCluster(ctx, provisioningCluster(), spoke, conversionfuzz.Resolver))
	require.NotEmpty(t, spoke.Status.Conditions)

	stored := &clusterv1.Cluster{}
	require.NoError(t, ConvertClusterToHub(ctx, spoke, stored)) // the write back
	require.NotContains(t, stored.Annotations, conversion.DataAnnotation,
		"nothing is recorded: the derived v1beta1 conditions are not, and v1beta2 holds all the rest")

	// The controllers move on: the next v1beta1 read shows the new state, nothing stale.
	stored.Status.Conditions[0].Status, stored.Status.Conditions[0].Reason, stored.Status.Conditions[0].Message = metav1.ConditionTrue, "Available", ""
	again := &Cluster{}
	require.NoError(t, ConvertHubToCluster(ctx, stored, again, conversionfuzz.Resolver))
	require.Equal(t, Condition{Type: "Ready", Status: corev1.ConditionTrue, Reason: "Available", LastTransitionTime: derivedAt}, again.Status.Conditions[0])
}

// TestDerivedConditions_RecordedV1beta1ConditionsWin: conditions a v1beta1 writer (an upstream
// v1beta1 controller) set are shown as written while the v1beta2 status is unchanged, not
// replaced by derived ones.
func TestDerivedConditions_RecordedV1beta1ConditionsWin(t *testing.T) {
	ctx := context.Background()
	spoke := &Cluster{}
	require.NoError(t, ConvertHubToCluster(ctx, provisioningCluster(), spoke, conversionfuzz.Resolver))
	own := Conditions{{Type: "Ready", Status: corev1.ConditionFalse, Severity: ConditionSeverityError, Reason: "Mine", LastTransitionTime: derivedAt}}
	spoke.Status.Conditions = own

	stored := &clusterv1.Cluster{}
	require.NoError(t, ConvertClusterToHub(ctx, spoke, stored))
	back := &Cluster{}
	require.NoError(t, ConvertHubToCluster(ctx, stored, back, conversionfuzz.Resolver))
	require.True(t, equality.Semantic.DeepEqual(own, back.Status.Conditions), "got %+v", back.Status.Conditions)
}

func TestSeverity_FollowsWhatTheReasonSays(t *testing.T) {
	for reason, want := range map[string]ConditionSeverity{
		"BootstrapFailed": ConditionSeverityError, "BootstrapTimedOut": ConditionSeverityError, "ImageNotFound": ConditionSeverityError,
		"FieldValueInvalid": ConditionSeverityError, "NameTaken": ConditionSeverityError,
		"WaitingForBootstrapData": ConditionSeverityInfo, "Provisioning": ConditionSeverityInfo, "Deleting": ConditionSeverityInfo,
		"ScalingUp": ConditionSeverityInfo, "Paused": ConditionSeverityInfo,
		"NotReady": ConditionSeverityWarning, "NodeNotHealthy": ConditionSeverityWarning, "ConnectionDown": ConditionSeverityWarning,
	} {
		require.Equal(t, want, Severity(reason), reason)
	}
}
