package container

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// TestEngineOverTLS reaches the engine as a remote one over tcp:// with
// mutual TLS: a listener on loopback that demands a client certificate
// relays to the engine's socket, as dockerd --tlsverify would serve it.
func TestEngineOverTLS(t *testing.T) {
	needEngine(t)
	dir := t.TempDir()
	ca := newAuthority(t, "a2a test engine CA")
	server := ca.issue(t, "engine", x509.ExtKeyUsageServerAuth)
	clientCert := ca.issue(t, "operator", x509.ExtKeyUsageClientAuth)
	stranger := newAuthority(t, "a2a test stranger CA")
	files := map[string][]byte{
		"ca.pem": ca.certPEM, "cert.pem": clientCert.certPEM, "key.pem": clientCert.keyPEM,
		"stranger-ca.pem": stranger.certPEM,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	serverPair, err := tls.X509KeyPair(server.certPEM, server.keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	host := "tcp://" + serveEngine(t, &tls.Config{
		Certificates: []tls.Certificate{serverPair},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    ca.pool(),
		MinVersion:   tls.VersionTLS12,
	})
	verified := func(o *Options) {
		o.Host, o.TLSVerify = host, true
		o.TLSCACert, o.TLSCert, o.TLSKey = filepath.Join(dir, "ca.pem"), filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	}

	t.Run("contract", func(t *testing.T) {
		opts := testOptions(t, newScope(t))
		verified(&opts)
		runContract(t, opts)
	})

	refused := []struct {
		name    string
		change  func(*Options)
		mention string // the advice the error gives besides the host
	}{
		{"engine certificate from another CA", func(o *Options) { o.TLSCACert = filepath.Join(dir, "stranger-ca.pem") }, "set tls_ca_cert to the CA"},
		{"no client certificate", func(o *Options) { o.TLSCert, o.TLSKey = "", "" }, "set tls_cert and tls_key"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions(t, newScope(t))
			verified(&opts)
			tt.change(&opts)
			rt, err := New(testContext(t), opts)
			if err == nil {
				_ = rt.Close()
				t.Fatalf("New over TLS with %s succeeded, want it refused", tt.name)
			}
			if !agentruntime.IsKind(err, agentruntime.KindBackend) || !strings.Contains(err.Error(), host) || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("New over TLS with %s = %v, want a backend error naming %s and %q", tt.name, err, host, tt.mention)
			}
		})
	}
}

// authority is a certificate and its key, PEM encoded, with the parsed
// certificate kept to sign others.
type authority struct {
	cert            *x509.Certificate
	key             *ecdsa.PrivateKey
	certPEM, keyPEM []byte
}

func newAuthority(t *testing.T, name string) authority {
	t.Helper()
	return selfOrSigned(t, &x509.Certificate{
		Subject:               pkix.Name{CommonName: name},
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}, nil)
}

// issue signs a leaf for loopback with the given use.
func (a authority) issue(t *testing.T, name string, use x509.ExtKeyUsage) authority {
	t.Helper()
	return selfOrSigned(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: name},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{use},
	}, &a)
}

func (a authority) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(a.cert)
	return p
}

// selfOrSigned completes template with a fresh key and validity, signed by
// parent, or by itself when parent is nil.
func selfOrSigned(t *testing.T, template *x509.Certificate, parent *authority) authority {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	template.SerialNumber = serial
	template.NotBefore = time.Now().Add(-time.Hour)
	template.NotAfter = time.Now().Add(24 * time.Hour)
	signer, signerKey := template, key
	if parent != nil {
		signer, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, template, signer, &key.PublicKey, signerKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return authority{
		cert:    cert,
		key:     key,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}
}

// serveEngine listens on loopback with cfg and relays every connection to
// the engine the tests use, until the test ends. It returns host:port.
func serveEngine(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	network, address := engineSocket(t)
	l, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		open  = map[net.Conn]struct{}{}
		relay sync.WaitGroup
	)
	track := func(c net.Conn, add bool) {
		mu.Lock()
		defer mu.Unlock()
		if add {
			open[c] = struct{}{}
		} else {
			delete(open, c)
		}
	}
	relay.Add(1)
	go func() {
		defer relay.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			track(c, true)
			relay.Add(1)
			go func() {
				defer relay.Done()
				defer track(c, false)
				relayTo(c, network, address)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		for c := range open {
			_ = c.Close()
		}
		mu.Unlock()
		relay.Wait()
	})
	return l.Addr().String()
}

// relayTo copies between c and a new connection to the engine until
// either side closes. A refused handshake ends it before the engine is
// dialled.
func relayTo(c net.Conn, network, address string) {
	defer func() { _ = c.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.(*tls.Conn).HandshakeContext(ctx); err != nil {
		return
	}
	var d net.Dialer
	engine, err := d.DialContext(ctx, network, address)
	if err != nil {
		return
	}
	defer func() { _ = engine.Close() }()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(engine, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, engine); done <- struct{}{} }()
	<-done
	// Closing both ends the other copy; the deferred closes do it.
	_ = c.Close()
	_ = engine.Close()
	<-done
}

// testEngineHost is the engine the tests use: DOCKER_HOST, else the
// platform default.
func testEngineHost() string {
	if h := os.Getenv(client.EnvOverrideHost); h != "" {
		return h
	}
	return client.DefaultDockerHost
}

// engineSocket is the network and address of the test engine's socket.
func engineSocket(t *testing.T) (network, address string) {
	t.Helper()
	scheme, address, _ := strings.Cut(testEngineHost(), "://")
	if scheme != "unix" && scheme != "tcp" {
		missing(t, "the test engine %s is neither unix:// nor tcp://, so it cannot be relayed", testEngineHost())
	}
	return scheme, address
}
