package envtest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// RBACMarkerRules turns the +kubebuilder:rbac markers of Go source files into
// policy rules, as controller-gen does. A controller test that runs as a user
// holding only these rules proves the markers, and so the generated Role, are
// enough for what the controller does.
func RBACMarkerRules(paths ...string) ([]rbacv1.PolicyRule, error) {
	var rules []rbacv1.PolicyRule
	for _, path := range paths {
		found, err := markerRules(path)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("no +kubebuilder:rbac markers in %s", path)
		}
		rules = append(rules, found...)
	}
	return rules, nil
}

func markerRules(path string) ([]rbacv1.PolicyRule, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
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
			for i := range values {
				values[i] = strings.Trim(values[i], `"`)
			}
			switch k {
			case "groups":
				rule.APIGroups = values
			case "resources":
				rule.Resources = values
			case "verbs":
				rule.Verbs = values
			}
		}
		rules = append(rules, rule)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return rules, nil
}

// UserWithRules binds a new ClusterRole holding rules to a new user called name
// and returns that user's client config; role and binding go when the test ends.
func (e *Environment) UserWithRules(t testing.TB, name string, rules []rbacv1.PolicyRule) *rest.Config {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: name}},
	}
	if err := e.Client.Create(ctx, role); err != nil {
		t.Fatalf("creating ClusterRole %s: %v", name, err)
	}
	if err := e.Client.Create(ctx, binding); err != nil {
		t.Fatalf("creating ClusterRoleBinding %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = e.Client.Delete(context.Background(), binding)
		_ = e.Client.Delete(context.Background(), role)
	})
	cfg, err := e.AddUser(name)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return cfg
}

// UserFromRBACMarkers is UserWithRules with the rules of the markers in paths.
func (e *Environment) UserFromRBACMarkers(t testing.TB, name string, paths ...string) *rest.Config {
	t.Helper()
	rules, err := RBACMarkerRules(paths...)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return e.UserWithRules(t, name, rules)
}
