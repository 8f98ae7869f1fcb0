package agenthost

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestReleasePagesDropsExecutablePagesSafely releases pages in this very
// process, checks the resident file-backed memory went down, and that the
// process still runs code, collects garbage and serves an agent.
func TestReleasePagesDropsExecutablePagesSafely(t *testing.T) {
	h := startInProcess(t, parseConfig(t, echoConfig), Options{})
	client, _ := newClient(t, h.Endpoint(), nil)
	if _, err := client.SendMessage(ctxFor(t), userText("before")); err != nil {
		t.Fatal(err)
	}
	before := statusKiB(t, "RssFile")
	releasePages()
	after := statusKiB(t, "RssFile")
	if after >= before {
		t.Errorf("RssFile %d KiB after releasing pages, was %d KiB", after, before)
	}
	runtime.GC()
	res, err := client.SendMessage(ctxFor(t), userText("after"))
	if err != nil || resultText(res) != "after" {
		t.Fatalf("host after releasing pages answered %#v, %v", res, err)
	}
}

func statusKiB(t *testing.T, field string) int {
	t.Helper()
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}
