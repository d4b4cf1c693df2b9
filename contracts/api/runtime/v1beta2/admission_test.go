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

package v1beta2_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
)

func newExtensionConfig() *runtimev1.ExtensionConfig {
	return &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "ext-"},
		Spec:       runtimev1.ExtensionConfigSpec{ClientConfig: runtimev1.ClientConfig{URL: "https://127.0.0.1:9443/prefix"}},
	}
}

// TestAdmission_RejectsInvalidExtensionConfigs sends one invalid object per rule of upstream's
// ExtensionConfig webhook (here CRD schema and CEL) and checks the apiserver names the field.
func TestAdmission_RejectsInvalidExtensionConfigs(t *testing.T) {
	svc := func(c *runtimev1.ExtensionConfig) *runtimev1.ServiceReference {
		c.Spec.ClientConfig.URL = ""
		c.Spec.ClientConfig.Service = &runtimev1.ServiceReference{Namespace: "ext-system", Name: "ext"}
		return c.Spec.ClientConfig.Service
	}
	for _, tc := range []struct {
		name   string
		mutate func(*runtimev1.ExtensionConfig)
		want   []string
	}{
		{"NeitherURLNorService", func(c *runtimev1.ExtensionConfig) {
			c.Spec.ClientConfig = runtimev1.ClientConfig{CABundle: []byte("x")}
		},
			[]string{"spec.clientConfig.url", "exactly one of url and service must be set"}},
		{"BothURLAndService", func(c *runtimev1.ExtensionConfig) {
			c.Spec.ClientConfig.Service = &runtimev1.ServiceReference{Namespace: "ext-system", Name: "ext"}
		}, []string{"spec.clientConfig.url", "exactly one of url and service must be set"}},
		{"HTTPURL", func(c *runtimev1.ExtensionConfig) { c.Spec.ClientConfig.URL = "http://127.0.0.1:9443" },
			[]string{"spec.clientConfig.url", "the scheme must be https"}},
		{"RelativeURL", func(c *runtimev1.ExtensionConfig) { c.Spec.ClientConfig.URL = "ext.example.com/hooks" },
			[]string{"spec.clientConfig.url", "must be an absolute URL"}},
		{"UserInfo", func(c *runtimev1.ExtensionConfig) { c.Spec.ClientConfig.URL = "https://user:pw@ext.example.com" },
			[]string{"spec.clientConfig.url", "user info (user:password@) is not allowed"}},
		{"Query", func(c *runtimev1.ExtensionConfig) { c.Spec.ClientConfig.URL = "https://ext.example.com/?a=b" },
			[]string{"spec.clientConfig.url", "a query (?...) or a fragment (#...) is not allowed"}},
		{"Fragment", func(c *runtimev1.ExtensionConfig) { c.Spec.ClientConfig.URL = "https://ext.example.com/#x" },
			[]string{"spec.clientConfig.url", "a query (?...) or a fragment (#...) is not allowed"}},
		{"ServiceNameNotDNS1035", func(c *runtimev1.ExtensionConfig) { svc(c).Name = "1ext" },
			[]string{"spec.clientConfig.service.name", "should match"}},
		{"ServiceNamespaceNotDNS1123", func(c *runtimev1.ExtensionConfig) { svc(c).Namespace = "Ext_System" },
			[]string{"spec.clientConfig.service.namespace", "should match"}},
		{"ServicePathRelative", func(c *runtimev1.ExtensionConfig) { svc(c).Path = "hooks" },
			[]string{"spec.clientConfig.service.path", "must start with /"}},
		{"ServicePortZero", func(c *runtimev1.ExtensionConfig) { svc(c).Port = ptr.To[int32](0) },
			[]string{"spec.clientConfig.service.port", "should be greater than or equal to 1"}},
		{"NameWithDots", func(c *runtimev1.ExtensionConfig) { c.GenerateName = ""; c.Name = "my.ext" },
			[]string{"metadata.name must be a DNS-1123 label (no dots)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newExtensionConfig()
			tc.mutate(c)
			env.RequireInvalid(t, c, tc.want...)
		})
	}
}

// TestAdmission_ExtensionConfigDefaults: the selector defaults to {} (every namespace) and a
// Service port to 443, as upstream's webhook defaults them; a valid object is stored as sent.
func TestAdmission_ExtensionConfigDefaults(t *testing.T) {
	ctx := context.Background()
	c := newExtensionConfig()
	c.Spec.ClientConfig = runtimev1.ClientConfig{Service: &runtimev1.ServiceReference{Namespace: "ext-system", Name: "ext", Path: "/hooks"}}
	require.NoError(t, env.Client.Create(ctx, c))
	t.Cleanup(func() { _ = env.Client.Delete(ctx, c) })
	require.Equal(t, &metav1.LabelSelector{}, c.Spec.NamespaceSelector)
	require.Equal(t, ptr.To[int32](443), c.Spec.ClientConfig.Service.Port)

	sent := newExtensionConfig()
	sent.Spec.Settings = map[string]string{"a": "b"}
	sent.Spec.ClientConfig.CABundle = []byte("-----BEGIN CERTIFICATE-----")
	sent.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	env.RequireStoredAsSent(t, sent, func(o client.Object) any { return o.(*runtimev1.ExtensionConfig).Spec })
}
