// Package ipamprovider is a small IPAM provider for tests: a pool kind of its own, TestIPPool
// (group ipam.cluster.x-k8s.io, version v1beta2; spec.addresses lists single addresses, ranges
// "first-last" and CIDRs, with a prefix and an optional gateway), and a controller that serves
// the IPAddressClaims referencing one. It does what upstream's in-cluster IPAM provider does, in
// little: it allocates the lowest free address of the pool to each claim, creates the IPAddress
// named after the claim and owned by it (controller, blockOwnerDeletion, so the garbage collector
// deletes it with the claim), sets the claim's status.addressRef and Ready, and releases the
// address when the claim is deleted (a finalizer on the claim: the address is deleted first,
// since a management cluster's garbage collector is not the only way an address goes). It
// honours the pause of the claim's Cluster and of the claim itself, reporting it in a Paused
// condition, as every Capstan controller does.
//
// The allocation is derived from the IPAddress objects of the pool, read live, never kept in
// memory or in the pool's status: a restarted controller (or two claims reconciled one after
// the other) cannot hand an address out twice.
//
// Why here and not in a provider module or under test/: the core serves the IPAM kinds but, as
// upstream, reconciles none of them, and a provider may not import another provider; every
// module's tests may import capstan.dev/contracts, so an infrastructure provider's envtest can
// run this provider to prove it claims addresses the way the contract says. It is test code:
// no manager ships it, and pools hold at most MaxPoolSize addresses.
package ipamprovider
