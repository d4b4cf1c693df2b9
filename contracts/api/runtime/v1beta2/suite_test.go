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
	"fmt"
	"os"
	"testing"

	"capstan.dev/contracts/api/runtime/v1beta2"
	"capstan.dev/contracts/envtest"
)

// env is a real kube-apiserver with the core CRDs (ExtensionConfig among them) installed: every
// admission rule is checked by the apiserver itself.
var env *envtest.Environment

func TestMain(m *testing.M) {
	scheme, err := envtest.DefaultSchemeWith(v1beta2.AddToScheme)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(envtest.Run(m, envtest.Options{Scheme: scheme}, &env))
}
