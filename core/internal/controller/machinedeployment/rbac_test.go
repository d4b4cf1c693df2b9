package machinedeployment

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	clusterv1 "capstan.dev/contracts/api/core/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/manager"
	"capstan.dev/core/internal/controller/machineset"
)

// TestRBACMarkers_AreEnoughToRollOutAndDelete runs both controllers as a user that holds only
// the permissions their kubebuilder:rbac markers grant, through a rollout and a deletion: a
// missing permission shows up as a rollout that never completes.
func TestRBACMarkers_AreEnoughToRollOutAndDelete(t *testing.T) {
	ctx := t.Context()
	rules := append(rbacMarkers(t, "controller.go"), rbacMarkers(t, "../machineset/controller.go")...)
	name := "capstan-md-ms-rbac-test"
	require.NoError(t, env.Client.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}))
	require.NoError(t, env.Client.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: name}},
	}))
	t.Cleanup(func() {
		_ = env.Client.Delete(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}})
		_ = env.Client.Delete(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}})
	})
	cfg, err := env.AddUser(name)
	require.NoError(t, err)

	f := newFixtureWithoutControllers(t)
	opts := manager.NewOptions("rbac-test", "rbac-test", "default")
	opts.LeaderElect = false
	opts.MetricsBindAddress, opts.HealthProbeBindAddress = "0", "0"
	opts.KubeAPIQPS, opts.KubeAPIBurst = 1000, 2000
	mgr, err := manager.New(opts, env.Scheme, cfg)
	require.NoError(t, err)
	copts := controller.Options{SkipNameValidation: ptr.To(true)}
	require.NoError(t, (&Reconciler{Client: mgr.GetClient()}).SetupWithManager(ctx, mgr, copts))
	require.NoError(t, (&machineset.Reconciler{Client: mgr.GetClient()}).SetupWithManager(ctx, mgr, copts))
	f.start(mgr)

	md := f.newMachineDeployment("workers", 2)
	require.NoError(t, env.Client.Create(ctx, md))
	oldMS, _ := f.waitForAvailable(md, 2)
	f.update(md, func() { md.Spec.Template.Spec.Version = "v1.37.3" })
	envtest.WaitFor(t, timeout, "the rollout to complete", func() (bool, error) {
		for name, m := range f.machines() {
			if m.Labels[clusterv1.MachineSetNameLabel] != oldMS {
				f.makeAvailable(name)
			}
		}
		sets := f.machineSets(md)
		_, oldThere := sets[oldMS]
		return len(sets) == 1 && !oldThere, nil
	})
	f.waitForAvailable(md, 2)

	require.NoError(t, env.Client.Delete(ctx, md))
	envtest.WaitFor(t, timeout, "the MachineDeployment and everything under it to be gone", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(md), &clusterv1.MachineDeployment{})
		return err != nil && client.IgnoreNotFound(err) == nil && len(f.machines()) == 0, nil
	})
}

// rbacMarkers turns the kubebuilder:rbac markers of a Go file into policy rules, as
// controller-gen does.
func rbacMarkers(t *testing.T, path string) []rbacv1.PolicyRule {
	t.Helper()
	file, err := os.Open(path)
	require.NoError(t, err)
	defer file.Close()
	var rules []rbacv1.PolicyRule
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		marker, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "// +kubebuilder:rbac:")
		if !ok {
			continue
		}
		var rule rbacv1.PolicyRule
		for _, kv := range strings.Split(marker, ",") {
			k, v, _ := strings.Cut(kv, "=")
			values := strings.Split(strings.Trim(v, `"`), ";")
			switch k {
			case "groups":
				for i := range values {
					values[i] = strings.Trim(values[i], `"`)
				}
				rule.APIGroups = values
			case "resources":
				rule.Resources = values
			case "verbs":
				rule.Verbs = values
			}
		}
		rules = append(rules, rule)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, rules, "no rbac markers in %s", path)
	return rules
}
