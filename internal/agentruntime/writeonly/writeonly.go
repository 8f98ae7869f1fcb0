// Package writeonly is how an agent's write-only values travel to the
// agent host and rest between its starts: one JSON object of variable names
// to values, which the host reads with `run --env-file FILE` (the flag is
// launch.WriteOnlyFileFlag). Keeping the values in a file of their own, rather
// than in the agent's environment or its config record, leaves them out of
// process listings, `docker inspect` and every record the runtime shows.
package writeonly

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

// Encode returns the file's content.
func Encode(values map[string]string) ([]byte, error) {
	return json.Marshal(values)
}

// Read reads a file written from Encode. Its errors name the file, never
// any of its content.
func Read(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the agent's write-only values: %w", err)
	}
	var values map[string]string
	if err := json.Unmarshal(data, &values); err != nil {
		// The decoder's message may quote the content: leave it out.
		return nil, fmt.Errorf("%s does not hold the agent's write-only values as a JSON object of strings; apply again to rewrite it", path)
	}
	var bad []string
	for name := range values {
		if !agentconfig.ValidEnvName(name) {
			bad = append(bad, name)
		}
	}
	if len(bad) > 0 {
		return nil, errors.New(path + " names variables that are not valid environment variable names; apply again to rewrite it")
	}
	return values, nil
}
