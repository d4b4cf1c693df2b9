package editplan_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	"capstan.dev/core/internal/capstanctl/cmd"
	"capstan.dev/core/internal/capstanctl/ctltest"
	"capstan.dev/core/internal/capstanctl/editplan"
	"capstan.dev/core/internal/mdrollout"
)

var env *envtest.Environment

// No controller runs: the tests write the MachineSet and Machines of a MachineDeployment as its
// controller and the MachineSet controller would (owners, labels, template hash, conditions), and
// a KubeadmControlPlane's Machines, KubeadmConfigs and InfraMachines as its controller would.
func TestMain(m *testing.M) {
	os.Exit(envtest.Run(m, envtest.Options{
		CRDs:              crds.All(),
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "..", "..", "bootstrap-kubeadm", "config", "crd", "bases")},
	}, &env))
}

type result struct {
	stdout, stderr string
	code           int
}

// run executes capstanctl in-process against the envtest API server.
func run(t *testing.T, args ...string) result {
	t.Helper()
	path := ctltest.KubeconfigFile(t, env)
	stdout, stderr, code := ctltest.Run(t, cmd.Execute, append(args, "--kubeconfig", path)...)
	return result{stdout: stdout, stderr: stderr, code: code}
}

// planJSON runs `plan -o json` on the file and decodes the result.
func planJSON(t *testing.T, file string) editplan.Result {
	t.Helper()
	r := run(t, "plan", "-f", file, "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var res editplan.Result
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	return res
}

// rolledOut creates a MachineDeployment of 3 replicas with the given strategy, its MachineSet
// and its Machines md-a, md-b, md-c (all available), as the controllers leave them after a
// complete rollout.
func rolledOut(t *testing.T, strategy clusterv1.MachineDeploymentRolloutStrategy) *clusterv1.MachineDeployment {
	t.Helper()
	ctx := context.Background()
	ns := env.CreateNamespace(t, "plan")
	cl := ctltest.Cluster(t, env, ns, "c1")
	md := ctltest.MachineDeployment(t, env, cl, "md")
	envtest.Update(t, env.Client, md, func() {
		md.Spec.Replicas = ptr.To[int32](3)
		md.Spec.Template.Spec.Version = "v1.37.2"
		md.Spec.Rollout.Strategy = strategy
	})
	hash := mdrollout.TemplateHash(&md.Spec.Template)
	labels := map[string]string{clusterv1.ClusterNameLabel: cl.Name, clusterv1.MachineDeploymentNameLabel: md.Name,
		clusterv1.MachineDeploymentUniqueLabel: hash}
	ms := &clusterv1.MachineSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: md.Name + "-" + hash, Labels: labels,
			Annotations:     map[string]string{clusterv1.RevisionAnnotation: "1"},
			OwnerReferences: []metav1.OwnerReference{controllerRef("MachineDeployment", md)}},
		Spec: clusterv1.MachineSetSpec{
			ClusterName: cl.Name,
			Replicas:    ptr.To[int32](3),
			Selector:    clusterv1.LabelSelector{MatchLabels: map[string]string{clusterv1.MachineDeploymentNameLabel: md.Name, clusterv1.MachineDeploymentUniqueLabel: hash}},
			Template:    *md.Spec.Template.DeepCopy(),
		},
	}
	ms.Spec.Template.Labels = labels
	require.NoError(t, env.Client.Create(ctx, ms))
	for _, name := range []string{"md-a", "md-b", "md-c"} {
		m := ctltest.Machine(t, env, cl, name, labels,
			ctltest.Condition(clusterv1.MachineAvailableCondition, metav1.ConditionTrue, "Available", "", 0),
			ctltest.Condition(clusterv1.MachineReadyCondition, metav1.ConditionTrue, "Ready", "", 0))
		envtest.Update(t, env.Client, m, func() { m.OwnerReferences = []metav1.OwnerReference{controllerRef("MachineSet", ms)} })
	}
	ctltest.Get(t, env, md)
	return md
}

func rollingUpdate(maxSurge, maxUnavailable int) clusterv1.MachineDeploymentRolloutStrategy {
	return clusterv1.MachineDeploymentRolloutStrategy{
		Type: clusterv1.RollingUpdateMachineDeploymentStrategyType,
		RollingUpdate: clusterv1.MachineDeploymentRolloutStrategyRollingUpdate{
			MaxSurge: ptr.To(intstr.FromInt(maxSurge)), MaxUnavailable: ptr.To(intstr.FromInt(maxUnavailable))},
	}
}

func controllerRef(kind string, obj metav1.Object) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: clusterv1.GroupVersion.String(), Kind: kind, Name: obj.GetName(), UID: obj.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
}

// editedFile writes md, changed by edit, as a user would write it (no status, no server
// metadata) and returns the file's path.
func editedFile(t *testing.T, md *clusterv1.MachineDeployment, edit func(*clusterv1.MachineDeployment)) string {
	t.Helper()
	e := &clusterv1.MachineDeployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "MachineDeployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: md.Namespace, Name: md.Name, Labels: md.Labels},
		Spec:       *md.Spec.DeepCopy(),
	}
	edit(e)
	data, err := yaml.Marshal(e)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "md.yaml")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}
