// Package crashpoint kills the process at a named point of its work when
// the A2A_CRASH_AT environment variable names that point, so that tests
// can crash the provider exactly there and prove that the next run
// recovers. A2A_CRASH_AT is "<point>" (the first time the point is
// reached) or "<point>:<n>" (the n-th time). Points are named
// "<component>-<operation>-<moment>", such as "local-start-spawned".
//
// Only a build with the crashpoint tag crashes, as the tests are built
// (go test -tags crashpoint; make test does so): in any other build, the
// provider as released included, Hit does nothing and A2A_CRASH_AT is
// never read.
package crashpoint

// EnvVar names the point to crash at.
const EnvVar = "A2A_CRASH_AT"
