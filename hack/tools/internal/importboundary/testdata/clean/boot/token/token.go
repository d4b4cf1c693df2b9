package token

import shared "example.test/contracts/api"

// Token uses the shared type.
type Token struct{ Ref shared.Ref }
