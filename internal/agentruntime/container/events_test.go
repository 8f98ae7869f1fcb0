package container

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/client"
)

// eventLimit bounds how long a test waits for an event the engine must
// report.
const eventLimit = 2 * time.Minute

// engineWatch follows the engine's events live from the moment it is
// opened, before the test acts. Read back from the engine's history
// afterwards, they depend on how much of it the engine keeps (Docker
// replays only its last 256 events, Podman rotates its event log), which
// other users of a shared engine use up.
type engineWatch struct {
	t      *testing.T
	cli    *client.Client
	events client.EventsResult
	cancel context.CancelFunc
}

// watchEngine opens a watch of the events that match filters. Events of
// the second before it are replayed too: an engine may register the
// subscriber only after it answered the request.
func watchEngine(t *testing.T, cli *client.Client, filters client.Filters) *engineWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	res := cli.Events(ctx, client.EventsListOptions{Since: strconv.FormatInt(time.Now().Add(-time.Second).Unix(), 10), Filters: filters})
	return &engineWatch{t: t, cli: cli, events: res, cancel: cancel}
}

// until returns the events seen until the first that last accepts,
// included, and closes the watch. It fails the test if the engine reports
// none within eventLimit.
func (w *engineWatch) until(what string, last func(events.Message) bool) []events.Message {
	w.t.Helper()
	defer w.cancel()
	deadline := time.After(eventLimit)
	var seen []events.Message
	for {
		select {
		case m := <-w.events.Messages:
			seen = append(seen, m)
			if last(m) {
				return seen
			}
		case err := <-w.events.Err:
			if err == nil || errors.Is(err, io.EOF) {
				w.t.Fatalf("the engine ended its event stream before it reported %s", what)
			}
			w.t.Fatalf("read the engine's events: %v", err)
		case <-deadline:
			w.t.Fatalf("the engine reported no %s within %s", what, eventLimit)
		}
	}
}

// imageEventsUntilNow returns the image events seen so far. The engine
// reports events in order, so once it reports the tag of a marker made now,
// it has reported every earlier one.
func (w *engineWatch) imageEventsUntilNow(image string) []events.Message {
	w.t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	marker := "a2a-test-marker:" + hex.EncodeToString(b)
	if _, err := w.cli.ImageTag(context.Background(), client.ImageTagOptions{Source: image, Target: marker}); err != nil {
		w.t.Fatalf("tag %s as the events' marker %s: %v", image, marker, err)
	}
	defer removeImage(w.t, marker)
	return w.until("the tag of the events' marker "+marker, func(m events.Message) bool {
		return m.Action == events.ActionTag && strings.Contains(m.Actor.Attributes["name"], marker)
	})
}
