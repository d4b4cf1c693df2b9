package machineset

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
)

func TestMachineName(t *testing.T) {
	long := strings.Repeat("a", 70)
	tests := []struct {
		name     string
		template string
		msName   string
		want     *regexp.Regexp
		wantErr  string
	}{
		{name: "default", msName: "workers", want: regexp.MustCompile(`^workers-[a-z0-9]{5}$`)},
		{name: "template with cluster", template: "{{ .cluster.name }}-w-{{ .random }}", msName: "workers",
			want: regexp.MustCompile(`^c1-w-[a-z0-9]{5}$`)},
		{name: "long names are cut to 58 and get a random suffix", msName: long,
			want: regexp.MustCompile(`^a{58}[a-z0-9]{5}$`)},
		{name: "unknown key", template: "{{ .nope }}-{{ .random }}", msName: "w", wantErr: "rendering"},
		{name: "invalid result", template: "UPPER-{{ .random }}", msName: "w", wantErr: "not a valid name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := machineName(tt.template, "c1", tt.msName)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Regexp(t, tt.want, got)
			require.LessOrEqual(t, len(got), 63)
		})
	}
}

func TestMachineName_IsRandomPerCall(t *testing.T) {
	a, err := machineName("", "c1", "w")
	require.NoError(t, err)
	b, err := machineName("", "c1", "w")
	require.NoError(t, err)
	require.NotEqual(t, a, b)
}

func TestLabelValue_HashesOnlyInvalidValues(t *testing.T) {
	require.Equal(t, "workers", LabelValue("workers"))
	long := strings.Repeat("x", 64)
	got := LabelValue(long)
	require.Empty(t, validation.IsValidLabelValue(got))
	require.Equal(t, got, LabelValue(long), "the hash is stable")
	require.NotEqual(t, got, LabelValue(long+"y"))
}

func TestDesiredReplicas(t *testing.T) {
	three := int32(3)
	require.Equal(t, int32(3), DesiredReplicas(&three, nil))
	require.Equal(t, int32(1), DesiredReplicas(nil, nil))
	require.Equal(t, int32(2), DesiredReplicas(nil, map[string]string{AutoscalerMinSizeAnnotation: "2"}))
	require.Equal(t, int32(1), DesiredReplicas(nil, map[string]string{AutoscalerMinSizeAnnotation: "x"}))
	require.Equal(t, int32(3), DesiredReplicas(&three, map[string]string{AutoscalerMinSizeAnnotation: "2"}))
}

func TestMachineLabels_AddsSetClusterAndDeploymentLabels(t *testing.T) {
	ms := &clusterv1.MachineSet{}
	ms.Name = "md-abc"
	ms.Labels = map[string]string{clusterv1.MachineDeploymentNameLabel: "md", clusterv1.MachineDeploymentUniqueLabel: "abc", "other": "x"}
	ms.Spec.ClusterName = "c1"
	ms.Spec.Template.Labels = map[string]string{"app": "web"}
	require.Equal(t, map[string]string{
		"app":                                  "web",
		clusterv1.MachineSetNameLabel:          "md-abc",
		clusterv1.ClusterNameLabel:             "c1",
		clusterv1.MachineDeploymentNameLabel:   "md",
		clusterv1.MachineDeploymentUniqueLabel: "abc",
	}, machineLabels(ms))
}
