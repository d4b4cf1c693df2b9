// Package framework holds what the quickstart driver (`make run`) and the e2e suite both do
// against a management cluster: apply a manifest of Cluster API objects, print a line per
// change while a cluster provisions, install the CNI into the workload cluster once its API
// answers, and wait until every Machine has a Ready Node. It talks to the providers only
// through objects, as a user does.
package framework
