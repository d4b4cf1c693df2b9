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

package extensionconfig

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	runtimev1 "capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/envtest"
	"capstan.dev/contracts/testing/crds"
	runtimeclient "capstan.dev/core/internal/runtime/client"
	"capstan.dev/core/internal/runtime/registry"
)

var env *envtest.Environment

func TestMain(m *testing.M) {
	scheme, err := envtest.DefaultSchemeWith(runtimev1.AddToScheme)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(envtest.Run(m, envtest.Options{CRDs: crds.All(), Scheme: scheme}, &env))
}

const timeout = 30 * time.Second

// startController runs the controller as cfg (nil: the admin), counting through calls (nil:
// not), with a short discovery timeout; it returns the runtime client (and its registry).
func startController(t *testing.T, cfg *rest.Config, calls *envtest.CallCounter) *runtimeclient.Client {
	t.Helper()
	if cfg == nil {
		cfg = env.Config
	}
	mgr := env.NewManager(t, "extensionconfig-test", cfg)
	c := mgr.GetClient()
	if calls != nil {
		c = calls.Wrap(c)
	}
	rc := runtimeclient.New(registry.New(), mgr.GetClient())
	r := &Reconciler{Client: c, Runtime: rc, DiscoveryTimeout: 2 * time.Second}
	require.NoError(t, r.SetupWithManager(context.Background(), mgr, controller.Options{SkipNameValidation: ptr.To(true)}))
	envtest.StartManager(t, mgr)
	return rc
}

// waitDiscovered waits for the Discovered condition of the ExtensionConfig name to have status
// at the current generation with a message containing every one of want.
func waitDiscovered(t *testing.T, name string, status metav1.ConditionStatus, want ...string) *runtimev1.ExtensionConfig {
	t.Helper()
	got := &runtimev1.ExtensionConfig{}
	envtest.WaitFor(t, timeout, fmt.Sprintf("ExtensionConfig %s Discovered=%s saying %q", name, status, want), func() (bool, error) {
		if err := env.Client.Get(context.Background(), client.ObjectKey{Name: name}, got); err != nil {
			return false, err
		}
		for _, c := range got.Status.Conditions {
			if c.Type != runtimev1.ExtensionConfigDiscoveredCondition || c.Status != status || c.ObservedGeneration != got.Generation {
				continue
			}
			for _, w := range want {
				if !strings.Contains(c.Message, w) {
					return false, fmt.Errorf("message %q does not say %q", c.Message, w)
				}
			}
			return true, nil
		}
		return false, fmt.Errorf("conditions: %+v", got.Status.Conditions)
	})
	return got
}
