package agenthost

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/errordetails"
	"google.golang.org/grpc/codes"
)

// restEndpoint serves the HTTP+JSON binding below the endpoint's path: 1.0
// at the binding's paths (/message:send, /tasks/{id}, ...) and 0.3 at the
// same paths under /v1, where 0.3 clients call them. The path names the
// version, and a call must ask for that version (an empty A2A-Version
// asks for 0.3).
type restEndpoint struct {
	v10, v03 http.Handler
	gate     *callGate
	// extended is the encoded extended card; nil when there is none.
	extended []byte
}

func newRESTEndpoint(handler a2asrv.RequestHandler, gate *callGate, extended []byte) *restEndpoint {
	return &restEndpoint{
		v10:      a2asrv.NewRESTHandler(handler),
		v03:      a2av0.NewRESTHandler(handler),
		gate:     gate,
		extended: extended,
	}
}

// ServeHTTP serves a call whose URL path is relative to the endpoint's.
func (e *restEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !isRESTPath(r.URL.Path) {
		http.NotFound(w, r)
		return
	}
	call, refused := e.gate.admit(w, r, false)
	if refused != nil {
		writeRESTRefusal(w, refused)
		return
	}
	defer call.release()
	handler, served, hint := e.v10, version10, "send A2A-Version: 1.0, or call the 0.3 paths under /v1"
	if strings.HasPrefix(r.URL.Path, a2av0.RESTPathPrefix+"/") {
		handler, served, hint = e.v03, version03, "0.3 is served here without the header; 1.0 at the same paths without /v1"
		w = jsonErrors{w}
	}
	if requested := requestedVersion(r); requested != served {
		writeRESTRefusal(w, versionRefusal(requested, served, hint))
		return
	}
	if strings.TrimPrefix(r.URL.Path, a2av0.RESTPathPrefix) == "/tasks" && r.URL.Query().Get("pageSize") == "0" {
		writeRESTRefusal(w, zeroPageSizeRefusal())
		return
	}
	if served == version10 && e.extended != nil && r.Method == http.MethodGet && r.URL.Path == "/extendedAgentCard" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(e.extended)
		return
	}
	r = r.WithContext(call.context(r))
	r.Body = io.NopCloser(bytes.NewReader(call.body))
	r.ContentLength = int64(len(call.body))
	if isRESTStream(r) {
		gate := newStreamGate(w, restStreamError)
		defer gate.finish()
		w = gate
	}
	handler.ServeHTTP(w, r)
}

// isRESTPath reports whether a path, relative to the endpoint's, is one
// of the binding's, of either version: others are answered 404 before any
// check, as on the rest of the host.
func isRESTPath(p string) bool {
	p = strings.TrimPrefix(p, a2av0.RESTPathPrefix)
	switch p {
	case "/message:send", "/message:stream", "/tasks", "/extendedAgentCard", "/card":
		return true
	}
	return strings.HasPrefix(p, "/tasks/")
}

// isRESTStream reports whether a call asks for an event stream: a
// streaming send or a subscription to a task.
func isRESTStream(r *http.Request) bool {
	p := strings.TrimPrefix(r.URL.Path, a2av0.RESTPathPrefix)
	return p == "/message:stream" || strings.HasPrefix(p, "/tasks/") && strings.HasSuffix(p, ":subscribe")
}

// restError is the HTTP+JSON binding's error body, a google.rpc.Status
// (AIP-193) whose ErrorInfo names the A2A error reason, as the SDK's
// clients read it.
type restError struct {
	Error restErrorBody `json:"error"`
}

type restErrorBody struct {
	Code    int                   `json:"code"`
	Status  string                `json:"status"`
	Message string                `json:"message"`
	Details []*errordetails.Typed `json:"details"`
}

// writeRESTRefusal answers a refused HTTP+JSON call.
func writeRESTRefusal(w http.ResponseWriter, f *refusal) {
	noteRefusal(w, f.kind)
	f.setHeaders(w)
	body, _ := json.Marshal(restError{Error: restErrorBody{
		Code:    f.status,
		Status:  grpcStatusName(f.grpc),
		Message: f.message,
		Details: []*errordetails.Typed{errordetails.NewErrorInfo(a2a.ErrorReason(f.kind), a2a.ProtocolDomain, nil)},
	}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	_, _ = w.Write(append(body, '\n'))
}

// grpcStatusName is a status code as google.rpc.Status names it:
// UNAUTHENTICATED for codes.Unauthenticated.
func grpcStatusName(c codes.Code) string {
	var b strings.Builder
	for i, r := range c.String() {
		if i > 0 && 'A' <= r && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// jsonErrors labels the 0.3 handler's error answers application/json, as
// the 1.0 handler's are: their body is a google.rpc.Status, not the RFC 9457
// problem details application/problem+json announces, and the SDK's own
// 0.3 client reads an error only when it is labelled JSON.
type jsonErrors struct{ http.ResponseWriter }

func (w jsonErrors) WriteHeader(status int) {
	if w.Header().Get("Content-Type") == "application/problem+json" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.ResponseWriter.WriteHeader(status)
}

// Flush keeps the writer an http.Flusher, which event streams need.
func (w jsonErrors) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's deadlines.
func (w jsonErrors) Unwrap() http.ResponseWriter { return w.ResponseWriter }
