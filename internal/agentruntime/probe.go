package agentruntime

import (
	"context"
	"io"
	"net/http"
	"time"
)

// ProbeTimeout bounds one card probe: a live agent answers in milliseconds,
// and a hung one must not stall a plan.
const ProbeTimeout = 2 * time.Second

var probeClient = &http.Client{Timeout: ProbeTimeout}

// ProbeCard reports whether an agent card answers 200 at cardURL.
func ProbeCard(ctx context.Context, cardURL string) bool {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return false
	}
	resp, err := probeClient.Do(req)
	if err != nil {
		return false
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode == http.StatusOK
}
