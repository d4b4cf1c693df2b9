package machine

import shared "example.test/contracts/api"

// Machine uses the shared type.
type Machine struct{ Ref shared.Ref }
