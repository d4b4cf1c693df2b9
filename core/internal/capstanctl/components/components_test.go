package components

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"capstan.dev/contracts/manager"
)

func names(ps []Provider) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func TestSelect_ReturnsProvidersInInstallationOrderWhateverTheFlagOrder(t *testing.T) {
	ps, err := Select([]string{"docker", "core", "kubeadm"})
	require.NoError(t, err)
	require.Equal(t, []string{"core", "kubeadm", "docker"}, names(ps))

	ps, err = Select([]string{"docker"})
	require.NoError(t, err)
	require.Equal(t, []string{"docker"}, names(ps))
}

func TestSelect_AcceptsModuleAndClusterctlNamesAndIgnoresDuplicates(t *testing.T) {
	ps, err := Select([]string{"infrastructure-docker", " bootstrap-kubeadm", "cluster-api", "core", ""})
	require.NoError(t, err)
	require.Equal(t, []string{"core", "kubeadm", "docker"}, names(ps))
}

func TestSelect_UnknownOrEmptyListsTheValidNames(t *testing.T) {
	_, err := Select([]string{"core", "aws"})
	require.EqualError(t, err, `unknown provider "aws": choose from core,kubeadm,docker`)
	_, err = Select(nil)
	require.EqualError(t, err, "no provider selected: choose from core,kubeadm,docker")
}

func obj(apiVersion, kind, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetName(name)
	return u
}

func kindsOf(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	return out
}

func TestNewPlan_NamespacesThenCRDsThenRBACBeforeDeployments(t *testing.T) {
	objs := []*unstructured.Unstructured{
		obj("apps/v1", "Deployment", "d1"),
		obj("rbac.authorization.k8s.io/v1", "RoleBinding", "rb"),
		obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "crd1"),
		obj("v1", "ServiceAccount", "sa"),
		obj("example.com/v1", "Widget", "w"),
		obj("v1", "Namespace", "ns1"),
		obj("rbac.authorization.k8s.io/v1", "ClusterRole", "cr"),
		obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "crd2"),
		obj("v1", "Namespace", "ns2"),
		obj("rbac.authorization.k8s.io/v1", "Role", "r"),
		obj("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "crb"),
		obj("apps/v1", "Deployment", "d2"),
		obj("v1", "Service", "webhook"),
	}
	p := NewPlan(objs, PlanOptions{})
	require.Equal(t, []string{"Namespace/ns1", "Namespace/ns2"}, kindsOf(p.Namespaces))
	require.Equal(t, []string{"CustomResourceDefinition/crd1", "CustomResourceDefinition/crd2"}, kindsOf(p.CRDs))
	require.Equal(t, []string{"ServiceAccount/sa", "ClusterRole/cr", "ClusterRoleBinding/crb", "Role/r", "RoleBinding/rb",
		"Service/webhook", "Widget/w", "Deployment/d1", "Deployment/d2"}, kindsOf(p.Rest))
	require.Len(t, p.All(), len(objs))
	require.Equal(t, "Namespace/ns1", kindsOf(p.All())[0])

	dev := NewPlan(objs, PlanOptions{WithoutWorkloads: true})
	require.NotContains(t, kindsOf(dev.Rest), "Deployment/d1")
	require.NotContains(t, kindsOf(dev.Rest), "Service/webhook")
	require.Len(t, dev.All(), len(objs)-3, "only the Deployments and the webhook Service are left out")
}

func TestNewPlan_OfEveryProviderInstallsAllNamespacesAndCRDsBeforeAnythingElse(t *testing.T) {
	objs, err := Load(All)
	require.NoError(t, err)
	p := NewPlan(objs, PlanOptions{})
	require.Equal(t, []string{"Namespace/capstan-system", "Namespace/capstan-kubeadm-bootstrap-system", "Namespace/capstan-docker-system"},
		kindsOf(p.Namespaces))
	require.Len(t, p.CRDs, 8+2+2+1+4+6+6, "core (with MachineDrainRule and ClusterClass, addons, ipam and ExtensionConfig), kubeadm, docker, dev")
	require.Equal(t, []string{"Deployment/cluster-api-controller-manager", "Deployment/bootstrap-kubeadm-controller-manager",
		"Deployment/infrastructure-docker-controller-manager"}, kindsOf(p.Rest[len(p.Rest)-3:]))
}

func TestSetImageTag_RewritesTheTagOfEveryDeploymentContainer(t *testing.T) {
	core, err := All[0].Objects()
	require.NoError(t, err)
	require.Equal(t, []string{"capstan/core-manager:dev"}, Images(core))
	require.NoError(t, SetImageTag(core, "v0.1.0-3-gabc"))
	require.Equal(t, []string{"capstan/core-manager:v0.1.0-3-gabc"}, Images(core))

	for _, bad := range []string{"", "-x", "a/b", "a:b", strings.Repeat("x", 129)} {
		require.ErrorContains(t, SetImageTag(core, bad), "invalid image tag", bad)
	}
	require.Equal(t, []string{"capstan/core-manager:v0.1.0-3-gabc"}, Images(core), "a rejected tag changes nothing")
}

func TestImages_NamesInitContainersToo(t *testing.T) {
	d := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"initContainers": []any{map[string]any{"name": "init", "image": "example/init:v1"}},
		"containers":     []any{map[string]any{"name": "manager", "image": "example/manager:v1"}},
	}}}}}
	d.SetAPIVersion("apps/v1")
	d.SetKind("Deployment")
	require.Equal(t, []string{"example/init:v1", "example/manager:v1"}, Images([]*unstructured.Unstructured{d}))
}

func TestWithTag(t *testing.T) {
	for in, want := range map[string]string{
		"capstan/core-manager:dev":              "capstan/core-manager:t",
		"capstan/core-manager":                  "capstan/core-manager:t",
		"localhost:5000/capstan/core-manager":   "localhost:5000/capstan/core-manager:t",
		"localhost:5000/capstan/x:dev":          "localhost:5000/capstan/x:t",
		"capstan/x@sha256:0123456789abcdef0123": "capstan/x@sha256:0123456789abcdef0123",
	} {
		require.Equal(t, want, WithTag(in, "t"), in)
	}
}

func TestParse_RejectsDocumentsWithoutKindOrName(t *testing.T) {
	objs, err := Parse([]byte("---\n# only a comment\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n"))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	_, err = Parse([]byte("apiVersion: v1\nkind: Namespace\n"))
	require.ErrorContains(t, err, "has no apiVersion, kind or name")
}

// managerFlags are the flags each provider's main.go registers (the shared manager options).
func managerFlags(t *testing.T, p Provider) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet(p.Module, pflag.ContinueOnError)
	manager.NewOptions(p.Module, p.LeaseName, p.Namespace).AddFlags(fs)
	return fs
}

func convert[T any](t *testing.T, u *unstructured.Unstructured) *T {
	t.Helper()
	out := new(T)
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, out, true),
		"%s %s", u.GetKind(), u.GetName())
	return out
}

// Each provider's components deploy it alone into its own namespace: every object labelled
// with the provider, CRDs with the contract label, the manager's identity bound to the
// generated ClusterRole and to a leader-election Role in its namespace, and one hardened
// Deployment whose flags the manager binary accepts.
// servesV1Beta1 are the providers whose manager serves a conversion webhook for v1beta1.
var servesV1Beta1 = map[string]bool{"core": true, "kubeadm": true, "docker": true}

func TestEmbedded_EachProviderDeploysAloneIntoItsNamespaceHardened(t *testing.T) {
	clusterctlName := map[string]string{"core": "cluster-api", "kubeadm": "bootstrap-kubeadm", "docker": "infrastructure-docker"}
	for _, p := range All {
		t.Run(p.Name, func(t *testing.T) {
			objs, err := p.Objects()
			require.NoError(t, err)
			kinds := map[string][]*unstructured.Unstructured{}
			for _, o := range objs {
				kinds[o.GetKind()] = append(kinds[o.GetKind()], o)
				want := clusterctlName[p.Name]
				if o.GetKind() == "CustomResourceDefinition" && strings.HasSuffix(o.GetName(), ".controlplane.cluster.x-k8s.io") {
					want = "control-plane-kubeadm" // the module's second clusterctl provider (package clusterctl)
				}
				require.Equal(t, want, o.GetLabels()["cluster.x-k8s.io/provider"], "%s %s", o.GetKind(), o.GetName())
				switch o.GetKind() {
				case "Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding",
					"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
					require.Empty(t, o.GetNamespace(), "%s %s", o.GetKind(), o.GetName())
				default:
					require.Equal(t, p.Namespace, o.GetNamespace(), "%s %s", o.GetKind(), o.GetName())
				}
			}
			// Each admission policy has its binding, which names it with the provider's prefix:
			// the mutating ones default the provider's kinds, the validating ones apply the
			// v1beta2 rules to v1beta1 writes.
			for _, kind := range []string{"MutatingAdmissionPolicy", "ValidatingAdmissionPolicy"} {
				require.NotEmpty(t, kinds[kind], "the provider's %ss", kind)
				policies := map[string]bool{}
				for _, o := range kinds[kind] {
					policies[o.GetName()] = true
				}
				require.Len(t, kinds[kind+"Binding"], len(policies))
				for _, b := range kinds[kind+"Binding"] {
					name, _, _ := unstructured.NestedString(b.Object, "spec", "policyName")
					require.True(t, policies[name], "binding %s names policy %q, which the components do not hold", b.GetName(), name)
				}
			}
			require.Len(t, kinds["Namespace"], 1)
			require.Equal(t, p.Namespace, kinds["Namespace"][0].GetName())
			require.NotEmpty(t, kinds["CustomResourceDefinition"])
			for _, crd := range kinds["CustomResourceDefinition"] {
				require.Equal(t, "v1beta2", crd.GetLabels()["cluster.x-k8s.io/v1beta2"], "contract label on %s", crd.GetName())
			}

			require.Len(t, kinds["ServiceAccount"], 1)
			sa := kinds["ServiceAccount"][0].GetName()
			subject := []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: p.Namespace}}
			// The core has a second, aggregated ClusterRole (see TestEmbedded_CoreAggregatesLabelledClusterRoles).
			clusterRoles := map[string]bool{}
			for _, cr := range kinds["ClusterRole"] {
				clusterRoles[cr.GetName()] = true
			}
			require.Len(t, clusterRoles, map[bool]int{true: 2, false: 1}[p.Name == "core"])
			require.Len(t, kinds["ClusterRoleBinding"], len(clusterRoles))
			for _, o := range kinds["ClusterRoleBinding"] {
				crb := convert[rbacv1.ClusterRoleBinding](t, o)
				require.True(t, clusterRoles[crb.RoleRef.Name], "binding %s names ClusterRole %s", crb.Name, crb.RoleRef.Name)
				require.Equal(t, subject, crb.Subjects)
			}
			// The leader-election Role, and the docker provider's for its webhook Secret (the
			// others' ClusterRole covers theirs).
			roles := map[string]*rbacv1.Role{}
			var rules []rbacv1.PolicyRule
			for _, o := range kinds["Role"] {
				role := convert[rbacv1.Role](t, o)
				require.Equal(t, p.Namespace, role.Namespace)
				roles[role.Name] = role
				rules = append(rules, role.Rules...)
			}
			require.Contains(t, rules, rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"},
				Verbs: []string{"get", "list", "watch", "create", "update", "patch"}}, "the manager may hold its Lease")
			require.Len(t, kinds["RoleBinding"], len(roles))
			for _, o := range kinds["RoleBinding"] {
				rb := convert[rbacv1.RoleBinding](t, o)
				require.Contains(t, roles, rb.RoleRef.Name)
				require.Equal(t, subject, rb.Subjects)
			}
			for _, o := range kinds["ClusterRole"] {
				rules = append(rules, convert[rbacv1.ClusterRole](t, o).Rules...)
			}

			require.Len(t, kinds["Deployment"], 1)
			d := convert[appsv1.Deployment](t, kinds["Deployment"][0])
			pod := d.Spec.Template.Spec
			require.Equal(t, sa, pod.ServiceAccountName)
			require.Len(t, pod.Containers, 1)
			c := pod.Containers[0]
			require.Equal(t, "capstan/"+p.Module+"-manager:dev", c.Image, "the image make images builds (tilt-provider.json's name)")
			require.Equal(t, corev1.PullIfNotPresent, c.ImagePullPolicy)
			require.NoError(t, managerFlags(t, p).Parse(c.Args), "the manager accepts its args")
			require.Contains(t, c.Args, "--leader-elect")
			require.Contains(t, c.Env, corev1.EnvVar{Name: "POD_NAMESPACE",
				ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
				"the Lease lives in the pod's namespace")
			ports := map[string]int32{}
			for _, port := range c.Ports {
				ports[port.Name] = port.ContainerPort
			}
			wantPorts := map[string]int32{"metrics": 8443, "healthz": 9440}
			if servesV1Beta1[p.Name] {
				// The conversion webhook (v1beta1) listens behind the provider's Service.
				wantPorts["webhook"] = 9443
				require.Contains(t, c.Args, "--webhook-bind-address=:9443")
				require.Len(t, kinds["Service"], 1)
				svc := convert[corev1.Service](t, kinds["Service"][0])
				require.Contains(t, c.Args, "--webhook-service=$(POD_NAMESPACE)/"+svc.Name)
				for _, verb := range []string{"get", "create", "update"} {
					require.True(t, allows(rules, verb, "secrets", svc.Name+"-cert"),
						"the replicas may %s the Secret they share the webhook certificate through", verb)
				}
				require.Equal(t, "webhook", svc.Spec.Ports[0].TargetPort.String())
				require.Equal(t, int32(443), svc.Spec.Ports[0].Port)
				for k, v := range svc.Spec.Selector {
					require.Equal(t, v, d.Spec.Template.Labels[k], "the Service selects the manager's pods")
				}
			}
			require.Equal(t, wantPorts, ports)
			require.Contains(t, c.Args, "--health-addr=:9440")
			require.Contains(t, c.Args, "--diagnostics-address=:8443")
			require.NotContains(t, c.Args, "--insecure-diagnostics", "metrics are served to authenticated, authorized callers only")
			require.True(t, allowsIn(rules, "authentication.k8s.io", "create", "tokenreviews"), "the diagnostics endpoint authenticates its callers")
			require.True(t, allowsIn(rules, "authorization.k8s.io", "create", "subjectaccessreviews"), "the diagnostics endpoint authorizes its callers")
			require.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
			require.Equal(t, "healthz", c.LivenessProbe.HTTPGet.Port.String())
			require.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
			require.Equal(t, "healthz", c.ReadinessProbe.HTTPGet.Port.String())
			require.False(t, c.Resources.Requests.Cpu().IsZero())
			require.False(t, c.Resources.Requests.Memory().IsZero())

			sc := c.SecurityContext
			require.NotNil(t, sc)
			require.Equal(t, false, *sc.AllowPrivilegeEscalation)
			require.Equal(t, true, *sc.ReadOnlyRootFilesystem)
			require.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop)
			require.Empty(t, sc.Capabilities.Add)
			require.Nil(t, sc.Privileged)
			psc := pod.SecurityContext
			require.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, psc.SeccompProfile.Type)
			if p.Name != "docker" {
				require.Equal(t, true, *psc.RunAsNonRoot)
				require.Equal(t, int64(65532), *psc.RunAsUser)
				require.Empty(t, pod.Volumes)
				return
			}
			// The docker provider talks to the host's Docker Engine through its socket, which
			// only root or the host's docker group may open (see its manager.yaml).
			require.Equal(t, int64(0), *psc.RunAsUser)
			require.Equal(t, false, *psc.RunAsNonRoot)
			want := []corev1.Volume{{Name: "docker-socket", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: "/var/run/docker.sock", Type: new(corev1.HostPathSocket)}}}}
			if diff := cmp.Diff(want, pod.Volumes); diff != "" {
				t.Fatalf("volumes (-want +got):\n%s", diff)
			}
			require.Equal(t, []corev1.VolumeMount{{Name: "docker-socket", MountPath: "/var/run/docker.sock"}}, c.VolumeMounts)
		})
	}
}

// TestEmbedded_CoreAggregatesLabelledClusterRoles: as upstream, the core manager holds the rules
// of every ClusterRole labelled cluster.x-k8s.io/aggregate-to-manager: "true", so that providers of
// other API groups (e.g. external remediation) grant the core access to their kinds.
func TestEmbedded_CoreAggregatesLabelledClusterRoles(t *testing.T) {
	objs, err := All[0].Objects()
	require.NoError(t, err)
	var aggregated *rbacv1.ClusterRole
	var bound bool
	for _, o := range objs {
		switch {
		case o.GetKind() == "ClusterRole" && o.GetName() == "cluster-api-aggregated-manager-role":
			aggregated = convert[rbacv1.ClusterRole](t, o)
		case o.GetKind() == "ClusterRoleBinding":
			crb := convert[rbacv1.ClusterRoleBinding](t, o)
			bound = bound || (crb.RoleRef.Name == "cluster-api-aggregated-manager-role" &&
				crb.Subjects[0].Name == "cluster-api-manager" && crb.Subjects[0].Namespace == All[0].Namespace)
		}
	}
	require.NotNil(t, aggregated, "core components hold cluster-api-aggregated-manager-role")
	require.NotNil(t, aggregated.AggregationRule)
	require.Equal(t, []metav1.LabelSelector{{MatchLabels: map[string]string{"cluster.x-k8s.io/aggregate-to-manager": "true"}}},
		aggregated.AggregationRule.ClusterRoleSelectors)
	require.True(t, bound, "the aggregated role is bound to the core's ServiceAccount")
}

// allows reports whether rules let verb act on the named object of the core-group resource
// (create is never narrowed by name).
// allowsIn says whether rules grant verb on every object of resource in group.
func allowsIn(rules []rbacv1.PolicyRule, group, verb, resource string) bool {
	return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
		return slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) &&
			slices.Contains(r.Verbs, verb) && len(r.ResourceNames) == 0
	})
}

func allows(rules []rbacv1.PolicyRule, verb, resource, name string) bool {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, "") && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) &&
			(len(r.ResourceNames) == 0 || (verb != "create" && slices.Contains(r.ResourceNames, name))) {
			return true
		}
	}
	return false
}
