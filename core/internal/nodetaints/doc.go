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

// Package nodetaints keeps the taints Cluster API manages on a workload cluster's Node. The
// bootstrap provider registers every worker with the node.cluster.x-k8s.io/uninitialized taint,
// so that no workload lands on it before Cluster API adopted it; whoever owns the Node in the
// core (the Machine controller for a Machine's Node, the MachinePool controller for a pool
// instance's Node) removes it, and propagates spec.taints of the Machine, or of the pool's
// template, as upstream's taint propagation proposal specifies. Both controllers use this one
// implementation, so a Machine's Node and a pool's Node follow the same rules.
package nodetaints
