// Package tiltloop tests the repository's root Tiltfile with a real Tilt (built by
// `make tilt` into $CAPSTAN_CACHE/tilt): `tilt ci` brings the local management plane and
// the three managers up healthy, and a change under one provider rebuilds and restarts
// that manager only. Each test runs Tilt on a copy of the repository in a temporary
// directory, so edits made meanwhile in the working tree do not trigger builds, and the
// copy's .capstan/tilt holds the plane and binaries. It stops every process it started
// (Tilt, the plane, the managers) by PID, finding the managers by their executable under
// the copy; it never touches the working tree's .capstan or bin/.
//
// The tests carry the build tag `tilt`: `make test-tilt` builds Tilt and runs them; `make test`
// leaves them out (it does not build Tilt, whose cold source build is 20 CPU-minutes; CI runs
// make test-tilt last, with Tilt built at the lowest weight beside the other steps).
package tiltloop
