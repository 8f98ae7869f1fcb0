//go:build !crashpoint

package crashpoint

// Enabled says that this build never crashes: it was built without the
// crashpoint tag.
const Enabled = false

// Hit does nothing: only a build with the crashpoint tag crashes.
func Hit(string) {}
