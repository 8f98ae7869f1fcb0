package agenthost

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/codes"
)

// callGate admits the calls of every binding alike, so that what one
// binding allows another cannot get around (specification, section 5.1):
// it authenticates the caller, charges each call to the host's budget and
// reads its body within a deadline and a size bound. What it turns away is
// a refusal, which each binding writes in its own shape.
type callGate struct {
	auth        authenticator // nil when the agent has no authentication
	bodyTimeout time.Duration
	maxBytes    int64
	budget      *budget
}

func newCallGate(auth authenticator, bodyTimeout time.Duration) *callGate {
	return &callGate{auth: auth, bodyTimeout: bodyTimeout, maxBytes: maxRequestBytes, budget: newBudget()}
}

// admittedCall is a call the gate let through: its body, read whole, and
// the scope of its caller. release gives its charge back once the answer
// (or stream) has ended.
type admittedCall struct {
	body    []byte
	caller  authedCaller
	release func()
}

// context is the request's context carrying the caller's scope, which
// callerScope hands to the SDK.
func (c *admittedCall) context(r *http.Request) context.Context {
	return context.WithValue(r.Context(), callerKey{}, c.caller)
}

// refusal is why the gate, or a binding's own check, turned a call away:
// the A2A error and how each binding states it.
type refusal struct {
	kind    error // the A2A error, whose reason every binding names
	message string
	status  int        // the HTTP status of a JSON-RPC or HTTP+JSON answer
	grpc    codes.Code // the status of a gRPC answer
	rpcCode int        // the code of a JSON-RPC error
	// header is sent with the answer on every binding (Retry-After,
	// WWW-Authenticate, Connection).
	header http.Header
}

// admit checks and reads a call, within the body deadline. The deadline
// covers every read of the request, net/http's own too: of a call refused
// before its body is read, HTTP/1.1 reads what is left of the body before
// the refusal goes out. It is lifted once a call is admitted, so a stream
// can stay open.
func (g *callGate) admit(w http.ResponseWriter, r *http.Request, framed bool) (*admittedCall, *refusal) {
	rc := http.NewResponseController(w)
	if g.bodyTimeout > 0 {
		if err := rc.SetReadDeadline(time.Now().Add(g.bodyTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return nil, g.bodyRefusal(err)
		}
	}
	call, refused := g.read(w, r, framed)
	if refused == nil && g.bodyTimeout > 0 {
		_ = rc.SetReadDeadline(time.Time{})
	}
	return call, refused
}

// read authenticates the caller from the headers first, so a call without
// the token is charged nothing and none of its body is read; then it
// charges the call to the budget and reads its body. A framed call is
// gRPC's: one length-prefixed message, whose prefix declares its size,
// and the end of the stream.
func (g *callGate) read(w http.ResponseWriter, r *http.Request, framed bool) (*admittedCall, *refusal) {
	who, refused := g.authenticate(r)
	if refused != nil {
		return nil, refused
	}
	declared := r.ContentLength
	var prefix []byte
	if framed {
		var err error
		if prefix, declared, err = readFramePrefix(r.Body); err != nil {
			return nil, g.bodyRefusal(err)
		}
		if declared > g.maxBytes {
			return nil, g.bodyRefusal(&http.MaxBytesError{Limit: g.maxBytes})
		}
	}
	release, ok := g.budget.acquire(declared, g.maxBytes)
	if !ok {
		return nil, busyRefusal()
	}
	body, err := g.readBody(w, r, declared, prefix)
	if err != nil {
		release()
		return nil, g.bodyRefusal(err)
	}
	return &admittedCall{body: body, caller: who, release: release}, nil
}

// authenticate returns the caller a request's headers name, or the
// refusal of a caller without the agent's token.
func (g *callGate) authenticate(r *http.Request) (authedCaller, *refusal) {
	if g.auth == nil {
		return authedCaller{scope: sharedScope}, nil
	}
	who, refused := g.auth.check(r)
	switch {
	case refused == nil:
		return who, nil
	case refused.forbidden:
		return authedCaller{}, &refusal{
			kind: a2a.ErrUnauthorized, message: refused.problem,
			status: http.StatusForbidden, grpc: codes.PermissionDenied, rpcCode: unauthorizedCode,
			header: http.Header{"Www-Authenticate": {refused.challenge}},
		}
	default:
		return authedCaller{}, &refusal{
			kind: a2a.ErrUnauthenticated, message: refused.problem,
			status: http.StatusUnauthorized, grpc: codes.Unauthenticated, rpcCode: unauthenticatedCode,
			header: http.Header{"Www-Authenticate": {refused.challenge}},
		}
	}
}

// grpcFramePrefix is the length of a gRPC message's prefix: a compression
// flag and the message's length, big-endian.
const grpcFramePrefix = 5

func readFramePrefix(body io.Reader) ([]byte, int64, error) {
	prefix := make([]byte, grpcFramePrefix)
	if _, err := io.ReadFull(body, prefix); err != nil {
		return nil, 0, err
	}
	return prefix, int64(binary.BigEndian.Uint32(prefix[1:])), nil
}

// errSecondMessage is a gRPC call that sent more after its request
// message.
var errSecondMessage = errors.New("a gRPC call of this agent sends one request message")

// readBody reads the whole body, bounded in size. A body of a declared
// length is read into a buffer of that size, not grown into one: growing
// would hold up to twice the body at once. A framed body is its prefix and
// exactly the message it declares, then the end of the stream: every A2A
// method takes one request message, and a byte more would be read, and
// held, by the gRPC server for as long as the client sends.
func (g *callGate) readBody(w http.ResponseWriter, r *http.Request, declared int64, prefix []byte) ([]byte, error) {
	if prefix != nil {
		body := make([]byte, len(prefix)+int(declared))
		copy(body, prefix)
		if _, err := io.ReadFull(r.Body, body[len(prefix):]); err != nil {
			return nil, err
		}
		switch _, err := io.ReadAtLeast(r.Body, make([]byte, 1), 1); {
		case err == nil:
			return nil, errSecondMessage
		case !errors.Is(err, io.EOF):
			return nil, err
		}
		return body, nil
	}
	var body bytes.Buffer
	if declared > 0 && declared <= g.maxBytes {
		body.Grow(int(declared) + bytes.MinRead)
	}
	_, err := body.ReadFrom(http.MaxBytesReader(w, r.Body, g.maxBytes))
	return body.Bytes(), err
}

func (g *callGate) bodyRefusal(err error) *refusal {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return &refusal{
			kind: a2a.ErrInvalidRequest, message: fmt.Sprintf("the request body is larger than the %d bytes this agent accepts", tooLarge.Limit),
			status: http.StatusRequestEntityTooLarge, grpc: codes.ResourceExhausted, rpcCode: codeInvalidRequest,
		}
	case errors.Is(err, errSecondMessage):
		return &refusal{
			kind: a2a.ErrInvalidRequest, message: "every method of this agent takes one request message, and the call sent more after it; end the stream after the message",
			status: http.StatusBadRequest, grpc: codes.InvalidArgument, rpcCode: codeInvalidRequest,
		}
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &refusal{
			kind: a2a.ErrInvalidRequest, message: fmt.Sprintf("the request body did not arrive within %s", g.bodyTimeout),
			status: http.StatusRequestTimeout, grpc: codes.DeadlineExceeded, rpcCode: codeInvalidRequest,
			header: http.Header{"Connection": {"close"}},
		}
	default:
		return &refusal{
			kind: a2a.ErrInvalidRequest, message: "the request body could not be read",
			status: http.StatusBadRequest, grpc: codes.InvalidArgument, rpcCode: codeInvalidRequest,
			header: http.Header{"Connection": {"close"}},
		}
	}
}

// busyRefusal answers a call the budget has no room for: 503 with a
// Retry-After, as the specification suggests for a temporary failure
// (section 3.3.2), and UNAVAILABLE on gRPC, which its clients retry.
func busyRefusal() *refusal {
	return &refusal{
		kind: a2a.ErrInternalError,
		message: fmt.Sprintf("this agent is serving as many requests as it takes at once (%d, or %d with bodies near the %d-byte limit); retry in %d s",
			requestBudget/minRequestCost, requestBudget/maxRequestBytes, maxRequestBytes, busyRetryAfter),
		status: http.StatusServiceUnavailable, grpc: codes.Unavailable, rpcCode: codeInternalError,
		header: http.Header{"Retry-After": {strconv.Itoa(busyRetryAfter)}},
	}
}

// versionRefusal answers a call for a protocol version the interface it
// reached does not serve (specification, section 3.6.2).
func versionRefusal(requested, served, hint string) *refusal {
	return &refusal{
		kind:    a2a.ErrVersionNotSupported,
		message: fmt.Sprintf("A2A-Version %q is not served here: this interface speaks %s; %s", requested, served, hint),
		status:  http.StatusBadRequest, grpc: codes.FailedPrecondition, rpcCode: codeVersionNotSupported,
	}
}

// zeroPageSizeRefusal answers a ListTasks call that asks, explicitly, for
// pages of no task: the page size is at least 1 (specification, section
// 3.1.4). The SDK's request type cannot tell it from a page size left out,
// which the task store reads as the default, so each binding looks for it
// where its calls carry it.
func zeroPageSizeRefusal() *refusal {
	return &refusal{
		kind: a2a.ErrInvalidParams, message: fmt.Sprintf("pageSize must be between 1 and %d, got 0; leave it out for %d", maxPageSize, defaultPageSize),
		status: http.StatusBadRequest, grpc: codes.InvalidArgument, rpcCode: codeInvalidParams,
	}
}

// setHeaders copies the refusal's headers to the answer.
func (f *refusal) setHeaders(w http.ResponseWriter) {
	for k, v := range f.header {
		w.Header()[k] = v
	}
}
