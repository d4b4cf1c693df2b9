package api

// Ref is shared.
type Ref struct{ Name string }
