// Package mdrollout holds the MachineDeployment controller's rollout decisions as pure
// functions: the template hash that says whether a template change replaces Machines or is
// changed in place, the rolling update limits (maxSurge, maxUnavailable) and the planners of
// the next step of a rollout or a scaling. The controller (core/internal/controller/
// machinedeployment) acts on them; `capstanctl plan` (core/internal/capstanctl/editplan) runs
// them to show what an edit will do before it is applied. Neither may decide otherwise than
// this package does, so the two cannot disagree.
//
// It reads and writes nothing: numbers and templates in, numbers and hashes out.
package mdrollout
