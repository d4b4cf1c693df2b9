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

package conversion

import (
	"fmt"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	infrav1alpha1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha1"
	infrav1 "capstan.dev/contracts/conformance/example/api/infrastructure/v1alpha2"
	"capstan.dev/contracts/envtest"
)

var env *envtest.Environment

// The API server gets the example's v0.2.0 CRDs (both versions, v1alpha2 stored), as the
// release installs them: without a conversion webhook until a test's manager configures one.
func TestMain(m *testing.M) {
	s, err := scheme()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(envtest.Run(m, envtest.Options{CRDDirectoryPaths: []string{"../config/crd/v1alpha2"}, Scheme: s}, &env))
}

// scheme holds both versions of the example's infrastructure kinds, as the example manager's.
func scheme() (*runtime.Scheme, error) {
	return envtest.DefaultSchemeWith(infrav1alpha1.AddToScheme, infrav1.AddToScheme)
}
