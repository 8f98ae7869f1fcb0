package agenthost

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// The tests in this file open HTTP/2 streams as a client out to exhaust a
// host does: streams that declare a body and never end it, and streams
// that send more than their one request message.

// rawH2 is an HTTP/2 connection (h2c, with prior knowledge) on which a
// test writes the frames it likes, and reads the answers of its streams.
type rawH2 struct {
	t        *testing.T
	fr       *http2.Framer
	enc      *hpack.Encoder
	block    bytes.Buffer
	nextID   uint32
	answered map[uint32]bool
}

func dialRawH2(t *testing.T, endpoint string) *rawH2 {
	t.Helper()
	conn := dialHost(t, endpoint)
	// A host that never answers fails the test rather than hanging it.
	_ = conn.SetDeadline(time.Now().Add(waitLimit))
	if _, err := io.WriteString(conn, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	c := &rawH2{t: t, fr: http2.NewFramer(conn, conn), nextID: 1, answered: map[uint32]bool{}}
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	c.enc = hpack.NewEncoder(&c.block)
	if err := c.fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	return c
}

// open starts a POST to path with header and sends body, if any, in one
// DATA frame, without ending the stream.
func (c *rawH2) open(path string, header http.Header, body []byte) {
	c.t.Helper()
	id := c.nextID
	c.nextID += 2
	c.block.Reset()
	fields := []hpack.HeaderField{{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"}, {Name: ":authority", Value: "agent"}, {Name: ":path", Value: path}}
	for k, vs := range header {
		for _, v := range vs {
			fields = append(fields, hpack.HeaderField{Name: strings.ToLower(k), Value: v})
		}
	}
	for _, f := range fields {
		if err := c.enc.WriteField(f); err != nil {
			c.t.Fatal(err)
		}
	}
	if err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.block.Bytes(), EndHeaders: true}); err != nil {
		c.t.Fatal(err)
	}
	if len(body) > 0 {
		if err := c.fr.WriteData(id, false, body); err != nil {
			c.t.Fatal(err)
		}
	}
}

// answer reads frames until a stream not yet answered is: its headers
// carry a gRPC status, or an HTTP status other than 200 (a refusal), or
// the host reset it. It returns the answer's fields, with ":reset" naming
// the error code of a reset.
func (c *rawH2) answer() map[string]string {
	c.t.Helper()
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			c.t.Fatalf("reading the host's answers: %v", err)
		}
		id := f.Header().StreamID
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = c.fr.WriteSettingsAck()
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				_ = c.fr.WritePing(true, f.Data)
			}
		case *http2.DataFrame:
			// Give the window back, so that many answers fit on one
			// connection.
			if n := len(f.Data()); n > 0 {
				_ = c.fr.WriteWindowUpdate(0, uint32(n))
			}
		case *http2.RSTStreamFrame:
			if !c.answered[id] {
				c.answered[id] = true
				return map[string]string{":reset": f.ErrCode.String()}
			}
		case *http2.MetaHeadersFrame:
			fields := map[string]string{}
			for _, hf := range f.Fields {
				fields[hf.Name] = hf.Value
			}
			if !c.answered[id] && (fields["grpc-status"] != "" || fields[":status"] != "" && fields[":status"] != "200") {
				c.answered[id] = true
				return fields
			}
		}
	}
}

// grpcFrame is msg as a gRPC call sends it: its length-prefixed message.
func grpcFrame(t *testing.T, msg proto.Message) []byte {
	t.Helper()
	raw, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return append(grpcPrefix(len(raw)), raw...)
}

// grpcPrefix is the prefix of an uncompressed message of n bytes.
func grpcPrefix(n int) []byte {
	prefix := make([]byte, grpcFramePrefix)
	binary.BigEndian.PutUint32(prefix[1:], uint32(n))
	return prefix
}

func grpcSendRequest(text string) *a2apb.SendMessageRequest {
	return &a2apb.SendMessageRequest{
		Message: &a2apb.Message{MessageId: "m-" + text, Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: text}}}},
	}
}

var grpcHeader = http.Header{"Content-Type": {"application/grpc"}, "Te": {"trailers"}, "A2a-Version": {"1.0"}}

// guardedMD is the metadata of an authenticated 1.0 gRPC call.
func guardedMD() metadata.MD {
	return metadata.Pairs("a2a-version", "1.0", "authorization", "Bearer "+bindingsToken)
}

// guarded is h with the agent's token added.
func guarded(h http.Header) http.Header {
	h = h.Clone()
	h.Set("Authorization", "Bearer "+bindingsToken)
	return h
}

const guardedBindingsConfig = echoConfig + "\n[auth]\nbearer_token = \"" + bindingsToken + "\"\n"

// wantAnswer checks a stream's answer is the refusal of its binding: the
// HTTP status, or the gRPC status on gRPC.
func wantAnswer(t *testing.T, fields map[string]string, httpStatus int, grpcCode codes.Code) {
	t.Helper()
	if fields["content-type"] == "application/grpc" || fields["grpc-status"] != "" {
		if fields["grpc-status"] != strconv.Itoa(int(grpcCode)) {
			t.Errorf("gRPC stream answered %v, want grpc-status %d (%s)", fields, grpcCode, grpcCode)
		}
		return
	}
	if fields[":status"] != strconv.Itoa(httpStatus) {
		t.Errorf("stream answered %v, want status %d", fields, httpStatus)
	}
}

// bindingStreams are, per binding, a call that takes the host's budget
// when its body is read: its path, headers and the whole of its body.
func bindingStreams(t *testing.T, h *Host) []struct {
	name   string
	path   string
	header http.Header
	body   []byte
} {
	base := strings.TrimSuffix(mustURL(t, h.Endpoint()).Path, "/")
	rest := []byte(`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hold"}]}}`)
	return []struct {
		name   string
		path   string
		header http.Header
		body   []byte
	}{
		{"JSON-RPC", base + "/", rpcHeader, []byte(`{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":` + mustJSON(t, sendParams("hold")) + `}`)},
		{"HTTP+JSON", base + "/message:stream", http.Header{"Content-Type": {"application/json"}, "A2a-Version": {"1.0"}, "Accept": {"text/event-stream"}}, rest},
		{"gRPC", "/" + grpcService10 + "/SendStreamingMessage", grpcHeader, grpcFrame(t, grpcSendRequest("hold"))},
	}
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestUnauthenticatedCallsTakeNoBudget checks the token is checked from
// the headers before a call is charged or its body read, on every
// binding: more unauthenticated streams than the budget has room for,
// each declaring a body it never sends (on gRPC, a prefix declaring the
// largest message), are each refused at once, and leave an authenticated
// call its room.
func TestUnauthenticatedCallsTakeNoBudget(t *testing.T) {
	h := startInProcess(t, parseConfig(t, guardedBindingsConfig), Options{BodyReadTimeout: waitLimit})
	for _, b := range bindingStreams(t, h) {
		t.Run(b.name, func(t *testing.T) {
			c := dialRawH2(t, h.Endpoint())
			header, body := b.header.Clone(), []byte(nil)
			if b.name == "gRPC" {
				body = grpcPrefix(maxRequestBytes)
			} else {
				header.Set("Content-Length", "100")
			}
			// One more than the budget's count, so a host that charges
			// them refuses the last as busy at once.
			streams := requestBudget/minRequestCost + 1
			for range streams {
				c.open(b.path, header, body)
			}
			for range streams {
				fields := c.answer()
				wantAnswer(t, fields, http.StatusUnauthorized, codes.Unauthenticated)
				if t.Failed() {
					return
				}
			}
			if err := grpcCall(t, h.Endpoint(), guardedMD(), "through"); err != nil {
				t.Errorf("authenticated call beside the unauthenticated streams: %v", err)
			}
		})
	}
}

// TestStreamsWithoutEndAreCut checks the body deadline holds for a call
// whose body never ends, on every binding: as many authenticated streaming
// calls as the budget has room for send their whole request (on gRPC, the
// one message) without ending their stream; each is refused once the
// deadline passes, and the budget is free again.
func TestStreamsWithoutEndAreCut(t *testing.T) {
	h := startInProcess(t, parseConfig(t, guardedBindingsConfig), Options{BodyReadTimeout: 200 * time.Millisecond})
	for _, b := range bindingStreams(t, h) {
		t.Run(b.name, func(t *testing.T) {
			c := dialRawH2(t, h.Endpoint())
			header := guarded(b.header)
			if b.name != "gRPC" {
				header.Set("Content-Length", strconv.Itoa(len(b.body)))
			}
			streams := requestBudget / minRequestCost
			for range streams {
				c.open(b.path, header, b.body)
			}
			for range streams {
				fields := c.answer()
				wantAnswer(t, fields, http.StatusRequestTimeout, codes.DeadlineExceeded)
				if t.Failed() {
					return
				}
			}
			waitFor(t, func() bool { return h.activity.inFlight.Load() == 0 })
			if err := grpcCall(t, h.Endpoint(), guardedMD(), "after"); err != nil {
				t.Errorf("authenticated call after the streams were cut: %v", err)
			}
		})
	}
}

// TestGRPCCallReadsOneMessage checks what a gRPC call may send is bounded
// for the whole of its stream, not for its first message only: after the
// one request message of an authenticated SendMessage, the stream goes on
// sending (as flow control lets it); the host refuses the call and the
// host process's resident memory stays near what it was before.
func TestGRPCCallReadsOneMessage(t *testing.T) {
	p := startHostProcess(t, guardedBindingsConfig, nil)
	if err := grpcCall(t, p.endpoint, guardedMD(), "warm up"); err != nil {
		t.Fatal(err)
	}
	before := mustResident(t, p)

	const flood = 64 << 20
	tr := &http2.Transport{AllowHTTP: true, DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithCancel(ctxFor(t))
	defer cancel()
	body, send := io.Pipe()
	sent := make(chan int64, 1)
	go func() {
		n, _ := io.Copy(send, io.MultiReader(bytes.NewReader(grpcFrame(t, grpcSendRequest("one"))), io.LimitReader(zeros{}, flood)))
		sent <- n
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+mustURL(t, p.endpoint).Host+"/"+grpcService10+"/SendMessage", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = guarded(grpcHeader)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("gRPC call: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	var n int64
	select {
	case n = <-sent:
	case <-ctx.Done():
		t.Fatal("the stream neither took the flood nor was refused")
	}
	after := mustResident(t, p)
	t.Logf("sent %d bytes after the message; host resident %d KiB before, %d KiB after", n, before, after)
	if grown := after - before; grown > flood/4>>10 {
		t.Errorf("the host grew by %d KiB while a stream sent %d bytes past its message", grown, n)
	}
	if got := resp.Header.Get("Grpc-Status"); got != strconv.Itoa(int(codes.InvalidArgument)) || !strings.Contains(resp.Header.Get("Grpc-Message"), "one request message") {
		t.Errorf("a stream sending past its message answered grpc-status %q %q, want %d naming the one request message",
			got, resp.Header.Get("Grpc-Message"), codes.InvalidArgument)
	}
}

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func mustResident(t *testing.T, p *hostProcess) int64 {
	t.Helper()
	kib, err := residentKiB(p.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return kib
}
