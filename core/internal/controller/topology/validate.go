package topology

import "capstan.dev/core/internal/topology/clusterstate"

// validateTopology checks the topology against its class as upstream's Cluster webhook does
// (clusterstate.Validate, shared with capstanctl topology plan).
var validateTopology = clusterstate.Validate
