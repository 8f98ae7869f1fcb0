package agenthost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/errordetails"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// JSON-RPC 2.0 error codes the host answers itself, before the SDK sees a
// request, and the A2A code for an unsupported protocol version.
const (
	codeParseError          = -32700
	codeInvalidRequest      = -32600
	codeInvalidParams       = -32602
	codeInternalError       = -32603
	codeVersionNotSupported = -32009
)

// maxBatchCalls bounds the calls of one JSON-RPC batch. They run one after
// another, so this bounds the work one request can ask for; a client with
// more to do sends more batches.
const maxBatchCalls = 100

// The protocol versions the host serves, as A2A-Version names them
// (Major.Minor). A request without the header is a 0.3 request
// (specification, section 3.6.2).
const (
	version10 = string(a2a.Version)
	version03 = string(card.CompatProtocolVersion)
)

// sharedScope is the caller every request acts as when the agent has no
// authentication: all callers see the same tasks.
const sharedScope = "anonymous"

// rpcEndpoint is the JSON-RPC endpoint in front of the SDK's handlers: it
// has the gate admit each call, picks the handler for the requested
// protocol version, and answers what the SDK's handlers answer wrongly
// (batches, calls that are no request objects) or cannot (the version
// check, which needs the request id).
type rpcEndpoint struct {
	byVersion map[string]http.Handler
	gate      *callGate
	// extended is the encoded extended card; nil when there is none.
	extended []byte
}

func newRPCEndpoint(handler a2asrv.RequestHandler, gate *callGate, extended []byte) *rpcEndpoint {
	return &rpcEndpoint{
		byVersion: map[string]http.Handler{
			version10: a2asrv.NewJSONRPCHandler(handler),
			version03: a2av0.NewJSONRPCHandler(handler),
		},
		gate:     gate,
		extended: extended,
	}
}

func (e *rpcEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	call, refused := e.gate.admit(w, r, false)
	if refused != nil {
		// The gate refuses before it has the whole body, so before the
		// call's id is known: null, as JSON-RPC 2.0 answers then.
		refused.setHeaders(w)
		writeRPCError(w, refused.status, nil, refused.rpcCode, refused.message, refused.kind)
		return
	}
	defer call.release()
	body := call.body
	head := readCall(body)
	id := head.id()
	version := requestedVersion(r)
	handler, ok := e.byVersion[version]
	if !ok {
		writeRPCError(w, http.StatusOK, id, codeVersionNotSupported,
			fmt.Sprintf("A2A-Version %q is not supported: this agent speaks %s and %s", version, version10, version03),
			a2a.ErrVersionNotSupported)
		return
	}
	ctx := call.context(r)
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		serveBatch(w, r.WithContext(ctx), handler, trimmed)
		return
	}
	if problem := head.objectProblem(); problem != "" {
		writeRPCError(w, http.StatusOK, id, codeInvalidRequest, problem, a2a.ErrInvalidRequest)
		return
	}
	if f := head.paramsRefusal(); f != nil {
		writeRPCError(w, http.StatusOK, id, f.rpcCode, f.message, f.kind)
		return
	}
	if head.isNotification() {
		if problem := head.notificationProblem(); problem != "" {
			writeRPCError(w, http.StatusOK, nil, codeInvalidRequest, problem, a2a.ErrInvalidRequest)
			return
		}
		runBuffered(r.WithContext(ctx), handler, body) // run, never answered (JSON-RPC 2.0, 4.1)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if version == version10 && e.extended != nil && head.method() == "GetExtendedAgentCard" {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": json.RawMessage(e.extended)})
		return
	}
	r = r.WithContext(ctx)
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	// The 0.3 handler writes its errors without a Content-Type; a stream
	// replaces this default with its own.
	w.Header().Set("Content-Type", "application/json")
	if isStreamingMethod(head.method()) {
		gate := newStreamGate(w, rpcStreamError)
		defer gate.finish()
		w = gate
	}
	handler.ServeHTTP(w, r)
}

// requestedVersion is the Major.Minor of the version a request asks for,
// from the A2A-Version header or query parameter; a patch number is
// ignored (specification, section 3.6) and no version at all means 0.3.
func requestedVersion(r *http.Request) string {
	v := strings.TrimSpace(r.Header.Get(a2a.SvcParamVersion))
	if v == "" {
		v = strings.TrimSpace(r.URL.Query().Get(a2a.SvcParamVersion))
	}
	if v == "" {
		return version03
	}
	major, rest, _ := strings.Cut(v, ".")
	minor, _, _ := strings.Cut(rest, ".")
	return major + "." + minor
}

// serveBatch answers a JSON-RPC batch: one response per request, in order,
// each written as soon as its call has run. An empty batch is an invalid
// request (JSON-RPC 2.0, section 6). Streams cannot share one response
// body, so streaming methods are refused inside a batch. Once the client
// has gone, the calls not yet run are skipped.
func serveBatch(w http.ResponseWriter, r *http.Request, handler http.Handler, body []byte) {
	if rec, ok := r.Context().Value(requestRecordKey{}).(*requestRecord); ok {
		rec.batch.Store(true)
	}
	calls, refusal := splitBatch(body)
	if refusal != nil {
		writeRPCError(w, http.StatusOK, nil, refusal.code, refusal.message, refusal.kind)
		return
	}
	out := batchWriter{w: w}
	for _, call := range calls {
		if r.Context().Err() != nil {
			break
		}
		if answer := runBatchCall(r, handler, call); answer != nil {
			out.write(answer)
		}
	}
	out.finish()
}

// batchRefusal is why a batch is refused whole.
type batchRefusal struct {
	code    int
	message string
	kind    error
}

// splitBatch splits a batch into its calls, refusing it whole, before any
// call runs, when it is no JSON array, is empty or holds more than
// maxBatchCalls calls. It stops at the first call over the cap, so an
// oversized batch costs no more to refuse than a full one costs to read.
func splitBatch(body []byte) ([]json.RawMessage, *batchRefusal) {
	notJSON := func(err error) *batchRefusal {
		return &batchRefusal{codeParseError, "the request is not valid JSON: " + err.Error(), a2a.ErrParseError}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil { // the opening bracket
		return nil, notJSON(err)
	}
	var calls []json.RawMessage
	for dec.More() {
		if len(calls) == maxBatchCalls {
			return nil, &batchRefusal{codeInvalidRequest,
				fmt.Sprintf("a batch may hold at most %d calls; send the rest in further batches", maxBatchCalls), a2a.ErrInvalidRequest}
		}
		var call json.RawMessage
		if err := dec.Decode(&call); err != nil {
			return nil, notJSON(err)
		}
		calls = append(calls, call)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return nil, notJSON(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, notJSON(errors.New("invalid data after the batch's closing bracket"))
	}
	if len(calls) == 0 {
		return nil, &batchRefusal{codeInvalidRequest, "an empty batch is not a valid request", a2a.ErrInvalidRequest}
	}
	return calls, nil
}

// runBatchCall runs one call of a batch and returns its answer, or nil for
// a notification, which is run but never answered, not even with its
// errors (JSON-RPC 2.0, 4.1).
func runBatchCall(r *http.Request, handler http.Handler, call []byte) []byte {
	head := readCall(call)
	if problem := head.objectProblem(); problem != "" {
		return rpcErrorJSON(head.id(), codeInvalidRequest, problem, a2a.ErrInvalidRequest)
	}
	if f := head.paramsRefusal(); f != nil && !head.isNotification() {
		return rpcErrorJSON(head.id(), f.rpcCode, f.message, f.kind)
	}
	if head.isNotification() {
		if problem := head.notificationProblem(); problem != "" {
			return rpcErrorJSON(nil, codeInvalidRequest, problem, a2a.ErrInvalidRequest)
		}
		runBuffered(r, handler, call)
		return nil
	}
	if method := head.method(); isStreamingMethod(method) {
		return rpcErrorJSON(head.id(), codeInvalidRequest,
			fmt.Sprintf("%s streams its answer and cannot be part of a batch; send it on its own", method), a2a.ErrInvalidRequest)
	}
	return bytes.TrimSpace(runBuffered(r, handler, call).body.Bytes())
}

// batchWriter writes a batch's answers as one JSON array, each answer as
// soon as it is known, so neither the host nor the client has to hold them
// all. The array, and the 200 status, begin with the first answer: a batch
// of notifications only is answered 204 with no body, not even an empty
// array.
type batchWriter struct {
	w       http.ResponseWriter
	started bool
}

// write sends one answer on its way. An error writing means the client has
// gone, which the request's context reports to serveBatch.
func (b *batchWriter) write(answer []byte) {
	separator := []byte(",")
	if !b.started {
		b.started = true
		b.w.Header().Set("Content-Type", "application/json")
		b.w.WriteHeader(http.StatusOK)
		separator = []byte("[")
	}
	_, _ = b.w.Write(separator)
	_, _ = b.w.Write(answer)
	_ = http.NewResponseController(b.w).Flush()
}

func (b *batchWriter) finish() {
	if !b.started {
		b.w.WriteHeader(http.StatusNoContent)
		return
	}
	_, _ = b.w.Write([]byte("]\n"))
}

// runBuffered runs one call of a batch or one notification, collecting its
// answer instead of writing it.
func runBuffered(r *http.Request, handler http.Handler, call []byte) *bufferedResponse {
	rec := &bufferedResponse{header: http.Header{}}
	single := r.Clone(r.Context())
	single.Body = io.NopCloser(bytes.NewReader(call))
	single.ContentLength = int64(len(call))
	handler.ServeHTTP(rec, single)
	return rec
}

func isStreamingMethod(method string) bool {
	switch method {
	case "SendStreamingMessage", "SubscribeToTask", "message/stream", "tasks/resubscribe":
		return true
	}
	return false
}

// bufferedResponse collects one answer of a batch.
type bufferedResponse struct {
	header http.Header
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header         { return b.header }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferedResponse) WriteHeader(int)             {}

type rpcError struct {
	Code    int                   `json:"code"`
	Message string                `json:"message"`
	Data    []*errordetails.Typed `json:"data,omitempty"`
}

type rpcErrorResponse struct {
	JSONRPC string   `json:"jsonrpc"`
	ID      any      `json:"id"`
	Error   rpcError `json:"error"`
}

func rpcErrorJSON(id any, code int, message string, kind error) json.RawMessage {
	raw, _ := json.Marshal(rpcErrorResponse{
		JSONRPC: "2.0",
		ID:      id,
		Error: rpcError{
			Code:    code,
			Message: message,
			Data:    []*errordetails.Typed{errordetails.NewErrorInfo(a2a.ErrorReason(kind), a2a.ProtocolDomain, nil)},
		},
	})
	return raw
}

// writeRPCError answers with a JSON-RPC error object whose data names the
// A2A error reason, as the SDK's own errors do.
func writeRPCError(w http.ResponseWriter, status int, id any, code int, message string, kind error) {
	noteRefusal(w, kind)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(rpcErrorJSON(id, code, message, kind), '\n'))
}

// callerKey carries the caller's scope from the endpoint to callerScope.
type callerKey struct{}

// callerScope makes the caller the endpoint authenticated the user of the
// call, which scopes what the task store shows it.
type callerScope struct {
	a2asrv.PassthroughCallInterceptor
}

func (callerScope) Before(ctx context.Context, callCtx *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	if who, ok := ctx.Value(callerKey{}).(authedCaller); ok {
		callCtx.User = a2asrv.NewAuthenticatedUser(who.scope, nil)
	}
	return ctx, nil, nil
}
