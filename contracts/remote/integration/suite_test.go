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

// Package integration tests the ClusterCache against a real kube-apiserver. The envtest
// apiserver plays both parts: the management cluster holding Clusters and kubeconfig
// Secrets, and the workload cluster those kubeconfigs point at. It lives apart from package
// remote so that remote's unit tests run without an apiserver.
package integration

import (
	"os"
	"testing"

	"capstan.dev/contracts/envtest"
)

var env *envtest.Environment

func TestMain(m *testing.M) {
	os.Exit(envtest.Run(m, envtest.Options{}, &env))
}
