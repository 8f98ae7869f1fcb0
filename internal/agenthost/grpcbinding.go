package agenthost

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// The gRPC services of the two protocol versions, as request paths name
// them: "/<service>/<method>".
const (
	grpcService10 = "lf.a2a.v1.A2AService"
	grpcService03 = "a2a.v1.A2AService"
)

// grpcEndpoint serves the gRPC binding on the host's own port, over
// HTTP/2 without TLS (h2c): the gate admits each call as it does on the
// other bindings, then the gRPC server runs it. Every A2A method takes one
// request message, so the gate can read it whole before the call runs.
type grpcEndpoint struct {
	server *grpc.Server
	gate   *callGate
}

func newGRPCEndpoint(handler a2asrv.RequestHandler, gate *callGate) *grpcEndpoint {
	server := grpc.NewServer(grpc.MaxRecvMsgSize(maxRequestBytes), grpc.UnaryInterceptor(refuseUnservable))
	grpcv1.NewHandler(handler).RegisterWith(server)
	grpcv0.NewHandler(handler).RegisterWith(server)
	return &grpcEndpoint{server: server, gate: gate}
}

// isGRPC reports whether a request is a gRPC call.
func isGRPC(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	return r.ProtoMajor == 2 && (ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+") || strings.HasPrefix(ct, "application/grpc;"))
}

func (e *grpcEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	call, refused := e.gate.admit(w, r, true)
	if refused != nil {
		writeGRPCRefusal(w, refused)
		return
	}
	defer call.release()
	service, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if served, ok := map[string]string{grpcService10: version10, grpcService03: version03}[service]; ok {
		if requested := requestedVersion(r); requested != served {
			writeGRPCRefusal(w, versionRefusal(requested, served,
				"call "+grpcService10+" with a2a-version: 1.0 in the metadata, or "+grpcService03+" without it for 0.3"))
			return
		}
	}
	r = r.WithContext(call.context(r))
	r.Body = io.NopCloser(bytes.NewReader(call.body))
	e.server.ServeHTTP(w, r)
}

// refuseUnservable refuses, as the other bindings do (InvalidParams), what
// the SDK's conversion from the proto would read as something else: a
// negative historyLength as none (the whole history), and an explicit
// pageSize of 0 as none (the default page).
func refuseUnservable(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if r, ok := req.(interface{ GetHistoryLength() int32 }); ok && r.GetHistoryLength() < 0 {
		return nil, status.Errorf(codes.InvalidArgument, "historyLength must not be negative, got %d", r.GetHistoryLength())
	}
	if r, ok := req.(*a2apb.ListTasksRequest); ok && r.PageSize != nil && *r.PageSize == 0 {
		return nil, status.Error(codes.InvalidArgument, zeroPageSizeRefusal().message)
	}
	return handler(ctx, req)
}

// writeGRPCRefusal answers a refused gRPC call with its status alone, in
// the response headers (a trailers-only response), with the ErrorInfo
// naming the A2A error reason in the status details, as the SDK's clients
// read it.
func writeGRPCRefusal(w http.ResponseWriter, f *refusal) {
	noteRefusal(w, f.kind)
	f.setHeaders(w)
	st := status.New(f.grpc, f.message)
	if withInfo, err := st.WithDetails(&errdetails.ErrorInfo{Reason: a2a.ErrorReason(f.kind), Domain: a2a.ProtocolDomain}); err == nil {
		st = withInfo
	}
	h := w.Header()
	h.Set("Content-Type", "application/grpc")
	h.Set("Grpc-Status", strconv.Itoa(int(f.grpc)))
	h.Set("Grpc-Message", grpcMessageEncode(f.message))
	if details, err := proto.Marshal(st.Proto()); err == nil {
		h.Set("Grpc-Status-Details-Bin", base64.RawStdEncoding.EncodeToString(details))
	}
	w.WriteHeader(http.StatusOK)
}

// grpcMessageEncode percent-encodes a status message as the gRPC wire
// format asks: every byte outside printable ASCII, and '%'.
func grpcMessageEncode(msg string) string {
	var b strings.Builder
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c < ' ' || c > '~' || c == '%' {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
