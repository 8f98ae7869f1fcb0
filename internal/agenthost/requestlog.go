package agenthost

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// requestRecord collects what the request log line reports. The A2A method
// is filled in by the SDK's call interceptor, which for streaming calls runs
// on another goroutine, hence the atomic.
type requestRecord struct {
	rpcMethod atomic.Pointer[string]
	// errReason is the A2A error reason the call was answered with, for
	// telemetry; nil for a success.
	errReason atomic.Pointer[string]
	// batch is set for a JSON-RPC batch, whose calls each name a method.
	batch atomic.Bool
}

type requestRecordKey struct{}

// rpcMethodRecorder notes which A2A method a JSON-RPC call reached, so the
// log names it without the host reading request bodies itself.
type rpcMethodRecorder struct {
	a2asrv.PassthroughCallInterceptor
}

func (rpcMethodRecorder) Before(ctx context.Context, callCtx *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	if rec, ok := ctx.Value(requestRecordKey{}).(*requestRecord); ok {
		method := callCtx.Method()
		rec.rpcMethod.Store(&method)
	}
	return ctx, nil, nil
}

// After notes the A2A error a call ends with, on every binding alike,
// which a JSON-RPC answer would otherwise hide behind its 200.
func (rpcMethodRecorder) After(ctx context.Context, _ *a2asrv.CallContext, resp *a2asrv.Response) error {
	if rec, ok := ctx.Value(requestRecordKey{}).(*requestRecord); ok && resp.Err != nil {
		rec.noteError(a2a.ErrorReason(resp.Err))
	}
	return nil
}

// logRequests writes one line per request: method, path, A2A method when
// known, status and duration. Never headers, query strings or bodies, which
// may carry tokens and user data. What the client chose (method, path) is
// escaped, so that the line holds nothing a shell or a log reader would act
// on.
func logRequests(logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &requestRecord{}
		sw := &statusWriter{ResponseWriter: w, rec: rec}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), requestRecordKey{}, rec)))
		rpc := "-"
		if m := rec.rpcMethod.Load(); m != nil {
			rpc = *m
		}
		logger.Info("request",
			"method", escapeForLog(r.Method),
			"path", escapeForLog(r.URL.Path),
			"rpc", escapeForLog(rpc),
			"status", sw.status(),
			"duration", time.Since(start).Round(time.Microsecond),
		)
	})
}

// escapeForLog percent-encodes every byte of s but letters, digits and
// "-._~/:@+,", and so every quote, space, control character, shell
// metacharacter and '%' itself: the result reads as the path it was, and
// decodes back to it unambiguously.
func escapeForLog(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~/:@+,", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// statusWriter remembers the status code. It keeps http.Flusher, which
// Server-Sent Events need.
type statusWriter struct {
	http.ResponseWriter
	code int
	// rec is the record of the request answered, where noteRefusal
	// finds it.
	rec *requestRecord
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}
