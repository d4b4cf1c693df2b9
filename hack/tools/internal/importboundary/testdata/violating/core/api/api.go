package api

import shared "example.test/contracts/api"

// Cluster uses the shared type.
type Cluster struct{ Ref shared.Ref }
