// Package drainrules decides what a drain does with each Pod of a Node: the MachineDrainRules
// of a Machine's namespace that select it, the Pods' cluster.x-k8s.io/drain label, the Pods a
// drain always leaves (DaemonSet and static Pods), the eviction groups by drain order, and
// which PodDisruptionBudgets select a Pod. It is the one place that logic lives: the Machine
// controller drains by it and `capstanctl plan` (editplan) predicts by it, so the plan cannot
// drift from what the drain does.
//
// It only reads (Pods, Namespaces, MachineDrainRules) and decides: cordoning, evicting and
// waiting stay with the Machine controller. It must not import a controller or capstanctl.
package drainrules
