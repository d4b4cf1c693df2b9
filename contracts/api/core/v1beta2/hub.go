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

package v1beta2

// v1beta2 is the hub of the conversion between the versions of each kind served: every other
// version converts to and from it (see capstan.dev/contracts/api/core/v1beta1).

// Hub marks Cluster as the conversion hub.
func (*Cluster) Hub() {}

// Hub marks Machine as the conversion hub.
func (*Machine) Hub() {}

// Hub marks MachineSet as the conversion hub.
func (*MachineSet) Hub() {}

// Hub marks MachineDeployment as the conversion hub.
func (*MachineDeployment) Hub() {}

// Hub marks MachineHealthCheck as the conversion hub.
func (*MachineHealthCheck) Hub() {}

// Hub marks MachinePool as the conversion hub.
func (*MachinePool) Hub() {}
