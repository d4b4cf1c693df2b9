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

// Package server is Capstan's test Runtime Extension: an HTTPS handler answering discovery,
// every lifecycle hook and the topology mutation hooks (handlers named as upstream's test
// extension names them, e.g. before-cluster-create, generate-patches), whose answers a test sets
// through a control endpoint. discover-variables defines imageRepository; generate-patches writes
// it (or, when no variable is sent, the setting of that name) into KubeadmControlPlaneTemplates (clusterConfiguration.imageRepository),
// KubeadmConfigTemplates (a preKubeadmCommands entry) and in front of any template's
// spec.template.spec.image; validate-topology allows; generate-upgrade-plan plans the .0 patch of
// every minor version between the control plane's and the target, then the target.
//
//	PUT /control/hooks/<Hook>   {"status":"Success","retryAfterSeconds":5,"message":"..."}
//	                            sets what <Hook> answers from now on (the default is Success with
//	                            retryAfterSeconds 0: allow); DELETE resets it. For GeneratePatches,
//	                            ValidateTopology and DiscoverVariables only status Failure (with
//	                            message) counts, and {"unknownUID":true} makes GeneratePatches
//	                            answer its first item with a uid the request did not hold;
//	                            {"workersUpgrades":["v1.39.1"]} makes GenerateUpgradePlan answer
//	                            those workers' steps (the ones newer than the workers' version).
//	PUT /control/discovery      {"mode":"normal"|"malformed"|"hang"|"failure"} makes discovery
//	                            answer normally, with a body that is not JSON, never (until the
//	                            caller gives up), or with status Failure.
//	GET /control/requests/<Hook> the last request <Hook> received (404 before the first).
//
// The control endpoint is served on the same TLS port and is unauthenticated: the binary is for
// tests and development only. The package owns no API object; main writes the CA.
package server
