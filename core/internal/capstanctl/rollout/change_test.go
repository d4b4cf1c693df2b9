package rollout_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
)

// rolloutAfter reads spec.rollout.after of a KubeadmControlPlane ("" when unset).
func rolloutAfter(t *testing.T, kcp *unstructured.Unstructured) string {
	t.Helper()
	s, _, err := unstructured.NestedString(reread(t, kcp).Object, "spec", "rollout", "after")
	require.NoError(t, err)
	return s
}

func requireRecent(t *testing.T, after time.Time, start time.Time) {
	t.Helper()
	require.False(t, after.Before(start.Truncate(time.Second)), "rollout.after %s is before the command started (%s)", after, start)
	require.False(t, after.After(time.Now()), "rollout.after %s is in the future", after)
}

func TestRestart_SetsRolloutAfterToNowOnAMachineDeployment(t *testing.T) {
	md := machineDeployment(t, "md-0")
	require.True(t, md.Spec.Rollout.After.IsZero())
	start := time.Now()
	r := runOnCluster(t, "rollout", "restart", "machinedeployment/md-0", "-n", md.Namespace)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "MachineDeployment "+md.Namespace+"/md-0 restarted: Machines created before ")
	require.Contains(t, r.stdout, "'capstanctl rollout status machinedeployment/md-0 -n "+md.Namespace+"'")
	requireRecent(t, reread(t, md).Spec.Rollout.After.Time, start)
	require.Equal(t, "RollingUpdate", string(md.Spec.Rollout.Strategy.Type), "the rest of spec.rollout is kept")
}

func TestRestart_SetsRolloutAfterToNowOnAKubeadmControlPlane(t *testing.T) {
	kcp := kubeadmControlPlane(t, "cp")
	require.Empty(t, rolloutAfter(t, kcp))
	start := time.Now()
	r := runOnCluster(t, "rollout", "restart", "kcp/cp", "-n", kcp.GetNamespace())
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "KubeadmControlPlane "+kcp.GetNamespace()+"/cp restarted")
	after, err := time.Parse(time.RFC3339, rolloutAfter(t, kcp))
	require.NoError(t, err)
	requireRecent(t, after, start)
}

func TestRestart_RefusesAPausedObjectAndChangesNothing(t *testing.T) {
	md := machineDeployment(t, "md-0")
	envtest.Update(t, env.Client, md, func() { md.Spec.Paused = ptr.To(true) })
	r := runOnCluster(t, "rollout", "restart", "md/md-0", "-n", md.Namespace)
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "can't restart paused MachineDeployment "+md.Namespace+"/md-0 (paused by spec.paused): "+
		"run 'capstanctl rollout resume machinedeployment/md-0 -n "+md.Namespace+"' first")
	require.True(t, reread(t, md).Spec.Rollout.After.IsZero())

	// The annotation pauses a MachineDeployment too, but resume owns only spec.paused: say how to lift it.
	envtest.Update(t, env.Client, md, func() {
		md.Spec.Paused = nil
		md.SetAnnotations(map[string]string{clusterv1.PausedAnnotation: ""})
	})
	r = runOnCluster(t, "rollout", "restart", "md/md-0", "-n", md.Namespace)
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "(paused by the cluster.x-k8s.io/paused annotation)")
	require.Contains(t, r.stderr, "remove the annotation with 'kubectl annotate machinedeployment md-0 -n "+md.Namespace+" cluster.x-k8s.io/paused-'")
	require.True(t, reread(t, md).Spec.Rollout.After.IsZero())

	kcp := kubeadmControlPlane(t, "cp")
	envtest.Update(t, env.Client, kcp, func() { kcp.SetAnnotations(map[string]string{clusterv1.PausedAnnotation: "true"}) })
	r = runOnCluster(t, "rollout", "restart", "kubeadmcontrolplane/cp", "-n", kcp.GetNamespace())
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "can't restart paused KubeadmControlPlane "+kcp.GetNamespace()+"/cp (paused by the cluster.x-k8s.io/paused annotation)")
	require.Empty(t, rolloutAfter(t, kcp))
}

func TestRestart_RefusesWhenARolloutIsAlreadyScheduled(t *testing.T) {
	md := machineDeployment(t, "md-0")
	later := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	envtest.Update(t, env.Client, md, func() { md.Spec.Rollout.After.Time = later })
	r := runOnCluster(t, "rollout", "restart", "md/md-0", "-n", md.Namespace)
	require.Equal(t, 1, r.code, r.stdout)
	require.Contains(t, r.stderr, "spec.rollout.after already schedules a rollout at "+later.Format(time.RFC3339)+"; remove it first")
	require.True(t, reread(t, md).Spec.Rollout.After.Time.Equal(later))
}

func TestPauseResume_MachineDeploymentRoundTripsSpecPaused(t *testing.T) {
	md := machineDeployment(t, "md-0")
	key := "MachineDeployment " + md.Namespace + "/md-0"
	r := runOnCluster(t, "rollout", "pause", "md/md-0", "-n", md.Namespace)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, key+" paused")
	require.True(t, *reread(t, md).Spec.Paused)
	version := md.ResourceVersion

	r = runOnCluster(t, "rollout", "pause", "md/md-0", "-n", md.Namespace)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, key+" is already paused; nothing changed\n", r.stdout)
	require.Equal(t, version, reread(t, md).ResourceVersion)

	r = runOnCluster(t, "rollout", "resume", "md/md-0", "-n", md.Namespace)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, key+" resumed\n", r.stdout)
	require.False(t, *reread(t, md).Spec.Paused)

	r = runOnCluster(t, "rollout", "resume", "md/md-0", "-n", md.Namespace)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, key+" is not paused; nothing changed\n", r.stdout)
}

func TestPauseResume_KubeadmControlPlaneRoundTripsThePausedAnnotation(t *testing.T) {
	kcp := kubeadmControlPlane(t, "cp")
	kcp.SetAnnotations(map[string]string{"keep": "me"})
	envtest.Update(t, env.Client, kcp, func() { kcp.SetAnnotations(map[string]string{"keep": "me"}) })
	key := "KubeadmControlPlane " + kcp.GetNamespace() + "/cp"

	r := runOnCluster(t, "rollout", "pause", "kcp/cp", "-n", kcp.GetNamespace())
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, key+" paused")
	require.Equal(t, map[string]string{"keep": "me", clusterv1.PausedAnnotation: "true"}, reread(t, kcp).GetAnnotations())

	r = runOnCluster(t, "rollout", "pause", "kcp/cp", "-n", kcp.GetNamespace())
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, key+" is already paused; nothing changed\n", r.stdout)

	r = runOnCluster(t, "rollout", "resume", "kcp/cp", "-n", kcp.GetNamespace())
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, key+" resumed\n", r.stdout)
	require.Equal(t, map[string]string{"keep": "me"}, reread(t, kcp).GetAnnotations())

	r = runOnCluster(t, "rollout", "resume", "kcp/cp", "-n", kcp.GetNamespace())
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, key+" is not paused; nothing changed\n", r.stdout)
}
