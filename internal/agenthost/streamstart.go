package agenthost

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// streamGate holds back the start of an event stream until its first
// event, so that a streaming call the host refuses before it has anything
// to stream (a task that is unknown or already finished, a message it
// cannot take) is answered with an ordinary JSON-RPC error response, as a
// client takes it, rather than with an event stream whose one event is the
// error: clients read a 200 event stream as a subscription that started.
// Once the first event is a result, the stream goes out as the SDK writes
// it; errors after that stay events of the stream.
type streamGate struct {
	w http.ResponseWriter
	// refusal says how the binding answers a stream whose first event is
	// an error: the status and body of the plain answer.
	refusal func(event []byte) (status int, body []byte, ok bool)
	header  http.Header
	status  int
	pending bytes.Buffer
	// open is set once the stream has started; refused once the call was
	// answered with an error, after which nothing more is written.
	open, refused bool
}

func newStreamGate(w http.ResponseWriter, refusal func(event []byte) (int, []byte, bool)) *streamGate {
	return &streamGate{w: w, refusal: refusal, header: http.Header{}}
}

func (g *streamGate) Header() http.Header {
	if g.open || g.refused {
		return g.w.Header()
	}
	return g.header
}

func (g *streamGate) WriteHeader(status int) {
	if g.open || g.refused {
		return
	}
	g.status = status
}

func (g *streamGate) Write(p []byte) (int, error) {
	switch {
	case g.open:
		return g.w.Write(p)
	case g.refused:
		return len(p), nil
	}
	g.pending.Write(p)
	event, complete := firstEvent(g.pending.Bytes())
	if !complete {
		return len(p), nil
	}
	if status, data, ok := g.refusal(event); ok {
		g.refused = true
		g.w.Header().Set("Content-Type", "application/json")
		g.w.WriteHeader(status)
		_, err := g.w.Write(append(data, '\n'))
		return len(p), err
	}
	return len(p), g.start()
}

// Flush sends what the stream has once it has started; before, there is
// nothing a client may see yet.
func (g *streamGate) Flush() {
	if g.open {
		if f, ok := g.w.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// Unwrap lets http.ResponseController reach the connection's deadlines.
func (g *streamGate) Unwrap() http.ResponseWriter { return g.w }

// finish sends what a handler that returned before its first event was
// complete wrote, as it wrote it.
func (g *streamGate) finish() {
	if !g.open && !g.refused && (g.status != 0 || g.pending.Len() > 0) {
		_ = g.start()
	}
}

func (g *streamGate) start() error {
	g.open = true
	for k, v := range g.header {
		g.w.Header()[k] = v
	}
	if g.status != 0 {
		g.w.WriteHeader(g.status)
	}
	_, err := g.w.Write(g.pending.Bytes())
	g.pending.Reset()
	g.Flush()
	return err
}

// firstEvent returns the first event of an SSE stream, once the blank line
// that ends it has arrived. A comment before any event (a keep-alive)
// counts as the stream's start.
func firstEvent(stream []byte) ([]byte, bool) {
	end := bytes.Index(stream, []byte("\n\n"))
	if end < 0 {
		return nil, false
	}
	return stream[:end], true
}

// eventData is the data of an SSE event, its lines joined.
func eventData(event []byte) []byte {
	var data []byte
	for _, line := range bytes.Split(event, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(rest, []byte(" "))...)
		}
	}
	return data
}

// rpcStreamError is the JSON-RPC answer of a stream whose first event is
// an error response: that response, with status 200 as every JSON-RPC
// answer.
func rpcStreamError(event []byte) (int, []byte, bool) {
	data := eventData(event)
	var answer struct {
		Error  json.RawMessage `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	if len(data) == 0 || json.Unmarshal(data, &answer) != nil || len(answer.Error) == 0 || len(answer.Result) > 0 {
		return 0, nil, false
	}
	return http.StatusOK, data, true
}

// restStreamError is the HTTP+JSON answer of a stream whose first event is
// an error: the error object, with the HTTP status it names, as the
// binding answers every error (specification, section 11).
func restStreamError(event []byte) (int, []byte, bool) {
	data := eventData(event)
	var answer struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if len(data) == 0 || json.Unmarshal(data, &answer) != nil || answer.Error == nil {
		return 0, nil, false
	}
	status := answer.Error.Code
	if status < 400 || status > 599 {
		status = http.StatusInternalServerError
	}
	return status, data, true
}
