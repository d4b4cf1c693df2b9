package leak

import core "example.test/core/api"

// Leak is a layering violation: contracts must not import a provider.
type Leak struct{ C core.Cluster }
