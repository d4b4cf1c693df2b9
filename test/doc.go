// Package test is the root of Capstan's end-to-end suites: each subpackage runs the
// real manager binaries, built from the provider modules, against a real management
// plane. It imports only capstan.dev/contracts, never a provider's packages: the
// suites see the providers exactly as users do, as processes talking through objects.
package test
