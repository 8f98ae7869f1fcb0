package agentruntime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// ProbeTimeout bounds one card probe: a live agent answers in milliseconds,
// and a hung one must not stall a plan.
const ProbeTimeout = 2 * time.Second

var probeClient = &http.Client{Timeout: ProbeTimeout}

// CardCheck is what probing an agent's card found.
type CardCheck struct {
	// URL is the card URL that answered, or the first one tried.
	URL string
	// Card is the card, when one answered and parsed as A2A 1.0 or 0.3.
	Card *card.Parsed
	// Err says why there is no card: nothing answered, an HTTP status,
	// or a *card.ValidationError listing the problems of the card served.
	Err error
}

// Healthy reports whether a valid card answered.
func (c CardCheck) Healthy() bool { return c.Card != nil }

// CheckCard fetches the card below base at each path in turn and parses
// the first that answers 200. An agent is healthy only when its card
// parses: one that answers with an invalid card serves clients nothing
// they can use.
func CheckCard(ctx context.Context, base string, paths []string) CardCheck {
	return CheckCardVia(ctx, probeClient, base, paths)
}

// CheckCardVia is CheckCard through client, for an agent reached through
// a proxy that needs credentials of its own, such as a cluster's API server.
func CheckCardVia(ctx context.Context, client *http.Client, base string, paths []string) CardCheck {
	first := CardCheck{}
	for i, p := range paths {
		u, err := url.JoinPath(base, p)
		if err != nil {
			u = strings.TrimRight(base, "/") + p
		}
		c := checkCardAt(ctx, client, u)
		if i == 0 {
			first = c
		}
		if c.Card != nil || !isNotServed(c.Err) {
			return c
		}
	}
	return first
}

// ProbeCard reports whether a valid agent card answers at cardURL.
func ProbeCard(ctx context.Context, cardURL string) bool {
	return CheckCardAt(ctx, cardURL).Healthy()
}

// errNotServed marks a card URL that answered 404: the card may be at the
// next path.
type errNotServed struct{ status string }

func (e errNotServed) Error() string { return "the card URL answered " + e.status }

func isNotServed(err error) bool {
	var notServed errNotServed
	return errors.As(err, &notServed)
}

// CheckCardAt fetches and parses the card at cardURL.
func CheckCardAt(ctx context.Context, cardURL string) CardCheck {
	return checkCardAt(ctx, probeClient, cardURL)
}

func checkCardAt(ctx context.Context, client *http.Client, cardURL string) CardCheck {
	out := CardCheck{URL: cardURL}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		out.Err = err
		return out
	}
	resp, err := client.Do(req)
	if err != nil {
		out.Err = err
		return out
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, card.MaxCardBytes+1))
	switch {
	case resp.StatusCode == http.StatusNotFound:
		out.Err = errNotServed{resp.Status}
	case resp.StatusCode != http.StatusOK:
		out.Err = fmt.Errorf("the card URL answered %s", resp.Status)
	case err != nil:
		out.Err = fmt.Errorf("read the card: %w", err)
	default:
		out.Card, out.Err = card.Parse(body)
	}
	return out
}
