package conversion_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/conversion"
)

func TestRefToContract_TakesTheGroupAndRejectsAMalformedAPIVersion(t *testing.T) {
	ref, err := conversion.RefToContract(&corev1.ObjectReference{APIVersion: "infrastructure.cluster.x-k8s.io/v1beta1", Kind: "DockerCluster", Name: "c"}, "spec.infrastructureRef")
	require.NoError(t, err)
	require.Equal(t, clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DockerCluster", Name: "c"}, ref)

	_, err = conversion.RefToContract(&corev1.ObjectReference{APIVersion: "a/b/c", Kind: "K", Name: "n"}, "spec.infrastructureRef")
	require.ErrorContains(t, err, `spec.infrastructureRef.apiVersion "a/b/c" is not group/version`)
}

func TestRefFromContract_KeepsTheStoredReferenceWhileItPointsAtTheSameObject(t *testing.T) {
	ctx := context.Background()
	ref := clusterv1.ContractVersionedObjectReference{APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "DockerCluster", Name: "c"}
	stored := &corev1.ObjectReference{APIVersion: "infrastructure.cluster.x-k8s.io/v1beta1", Kind: "DockerCluster", Name: "c", UID: "u"}
	failing := conversion.ResolverFunc(func(context.Context, schema.GroupKind) (string, error) { return "", errors.New("no CRD") })

	got, err := conversion.RefFromContract(ctx, ref, "ns", stored, failing, "spec.infrastructureRef")
	require.NoError(t, err)
	require.Equal(t, stored, got)

	ref.Name = "other"
	_, err = conversion.RefFromContract(ctx, ref, "ns", stored, failing, "spec.infrastructureRef")
	require.ErrorContains(t, err, "spec.infrastructureRef: resolving the API version of DockerCluster.infrastructure.cluster.x-k8s.io: no CRD")

	v2 := conversion.ResolverFunc(func(_ context.Context, gk schema.GroupKind) (string, error) { return gk.Group + "/v1beta2", nil })
	got, err = conversion.RefFromContract(ctx, ref, "ns", stored, v2, "spec.infrastructureRef")
	require.NoError(t, err)
	require.Equal(t, &corev1.ObjectReference{APIVersion: "infrastructure.cluster.x-k8s.io/v1beta2", Kind: "DockerCluster", Name: "other", Namespace: "ns"}, got)
}

func TestDurations_TruncateToSecondsAndRestoreWhatWasWritten(t *testing.T) {
	require.Equal(t, ptr.To[int32](1), conversion.DurationToSeconds(&metav1.Duration{Duration: 1900 * time.Millisecond}))
	require.Equal(t, ptr.To[int32](2147483647), conversion.DurationToSeconds(&metav1.Duration{Duration: 100 * 365 * 24 * time.Hour}))
	require.Nil(t, conversion.DurationToSeconds(nil))
	written := &metav1.Duration{Duration: 1900 * time.Millisecond}
	require.Equal(t, written, conversion.SecondsToDuration(ptr.To[int32](1), written))
	require.Equal(t, &metav1.Duration{Duration: 5 * time.Second}, conversion.SecondsToDuration(ptr.To[int32](5), written))
}

func TestIntents_FalseAndZeroBecomeUnsetUnlessRecorded(t *testing.T) {
	require.Nil(t, conversion.BoolIntent(false, nil))
	require.Equal(t, ptr.To(false), conversion.BoolIntent(false, ptr.To(false)))
	require.Equal(t, ptr.To(true), conversion.BoolIntent(true, nil))
	require.Nil(t, conversion.Int32Intent(0, nil))
	require.Equal(t, ptr.To[int32](0), conversion.Int32Intent(0, ptr.To[int32](0)))
}
