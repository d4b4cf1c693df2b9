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

// Package v1beta1 serves the core Cluster API kinds of group cluster.x-k8s.io at version v1beta1,
// field for field as upstream's v1beta1 (release 1.14, with the fields upstream mirrored from
// v1beta2), so that manifests and clients written for upstream's v1beta1 keep working. It is a
// spoke: v1beta2 (capstan.dev/contracts/api/core/v1beta2) is the hub and the only stored
// version, and the conversion functions here run in the core manager's conversion webhook.
//
// Conditions are as v1beta1 had them: status.conditions is the v1beta1 list (with severity) and
// the v1beta2 conditions appear under status.v1beta2.conditions. Capstan's v1beta2 keeps no
// deprecated v1beta1 status: failureReason and failureMessage read empty, the legacy replica
// counters are derived from the v1beta2 ones, and status.conditions, unless a v1beta1 client
// wrote it, shows upstream's v1beta1 conditions derived from the v1beta2 ones with the same
// meaning (DerivedConditions; Ready for every kind but MachineHealthCheck and ClusterClass), on every read and
// never stored.
//
// ClusterClass and Cluster.spec.topology are served in upstream's v1beta1 shape too. What
// v1beta2 has no field for (topology.rolloutAfter, variables' definitionFrom, sub-second
// durations, a template reference's namespace or uid) is kept in the conversion-data annotation
// of the stored object and given back field by field, matched by name, even after v1beta2
// writers changed other fields; upstream drops rolloutAfter and definitionFrom, Capstan keeps them
// for the v1beta1 clients that wrote them.
//
// The CRD versions are generated unserved (the bases envtest installs): the core manager turns
// v1beta1 on when its conversion webhook is ready to convert it, so that a v1beta1 object can
// never be stored unconverted. The deployed components (core/config/crd) serve v1beta1 with the
// webhook configured already, leaving only the CA bundle to the manager, so that re-applying them
// never switches v1beta1 off while the manager runs.
//
// +kubebuilder:object:generate=true
// +groupName=cluster.x-k8s.io
package v1beta1
