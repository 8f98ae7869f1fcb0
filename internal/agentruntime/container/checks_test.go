package container

import (
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func TestChecks(t *testing.T) {
	tests := []struct {
		name  string
		check func(string) error
		value string
		want  string // "" expects the value accepted
	}{
		{"network default", CheckNetwork, DefaultNetwork, ""},
		{"network user-defined", CheckNetwork, "agents_net.v2-a", ""},
		{"network with spaces", CheckNetwork, "not a network", "is not a network name"},
		{"network starting with a dot", CheckNetwork, ".hidden", "is not a network name"},
		{"network of another container", CheckNetwork, "container:web", "is not a network name"},
		{"network host", CheckNetwork, "host", "publishes no ports"},
		{"network none", CheckNetwork, "none", "publishes no ports"},
		{"network empty", CheckNetwork, "", "is not a network name"},

		{"user default", CheckUser, DefaultUser, ""},
		{"user image's own", CheckUser, "", ""},
		{"user uid", CheckUser, "1000", ""},
		{"user name", CheckUser, "nobody", ""},
		{"user name and group", CheckUser, "app:staff", ""},
		{"user uid and group", CheckUser, "1000:staff", ""},
		{"user three parts", CheckUser, "1000:1000:1000", "is not a user"},
		{"user empty gid", CheckUser, "1000:", "is not a user"},
		{"user with a space", CheckUser, "root user", "is not a user"},
		{"user uid out of range", CheckUser, "12345678901", "is not a user"},

		{"advertise IPv4", CheckAdvertiseHost, "127.0.0.1", ""},
		{"advertise IPv6", CheckAdvertiseHost, "::1", ""},
		{"advertise every address", CheckAdvertiseHost, "0.0.0.0", ""},
		{"advertise localhost", CheckAdvertiseHost, "localhost", ""},
		{"advertise name", CheckAdvertiseHost, "agents.example.com", ""},
		{"advertise fully qualified", CheckAdvertiseHost, "agents.example.com.", ""},
		{"advertise words", CheckAdvertiseHost, "not a host!!", "neither an IP address nor a host name"},
		{"advertise URL", CheckAdvertiseHost, "http://agents.example.com", "neither an IP address nor a host name"},
		{"advertise with port", CheckAdvertiseHost, "127.0.0.1:8080", "neither an IP address nor a host name"},
		{"advertise bad IPv4", CheckAdvertiseHost, "256.1.1.1", "neither an IP address nor a host name"},
		{"advertise label with a leading hyphen", CheckAdvertiseHost, "-agents.example.com", "neither an IP address nor a host name"},
		{"advertise bracketed IPv6", CheckAdvertiseHost, "[::1]", "without brackets"},
		{"advertise zoned IPv6", CheckAdvertiseHost, "fe80::1%eth0", "zone"},
		{"advertise empty", CheckAdvertiseHost, "", "empty"},

		{"image name", CheckImage, "agent", ""},
		{"image tagged in a registry", CheckImage, "registry.example.com:5000/team/agent:1.2", ""},
		{"image by digest", CheckImage, "agent@sha256:" + strings.Repeat("a", 64), ""},
		{"image id", CheckImage, "sha256:" + strings.Repeat("b", 64), ""},
		{"image upper case", CheckImage, "Team/Agent", "is not an image reference"},
		{"image with spaces", CheckImage, "my agent", "is not an image reference"},
		{"image empty", CheckImage, "", "is not an image reference"},

		{"host unix", CheckHost, "unix:///var/run/docker.sock", ""},
		{"host tcp", CheckHost, "tcp://127.0.0.1:2376", ""},
		{"host tcp IPv6", CheckHost, "tcp://[::1]:2375", ""},
		{"host tcp with a base path", CheckHost, "tcp://engine.example.com:2376/proxy", ""},
		{"host ssh", CheckHost, "ssh://deploy@engine.example.com", ""},
		{"host ssh with a port", CheckHost, "ssh://engine.example.com:2222", ""},
		{"host npipe", CheckHost, "npipe:////./pipe/docker_engine", ""},
		{"host http", CheckHost, "http://nowhere", "write tcp:// instead of http://, with the port, such as tcp://nowhere:2376"},
		{"host https with a port", CheckHost, "https://engine:2376", "such as tcp://engine:2376"},
		{"host no scheme", CheckHost, "/var/run/docker.sock", "has no scheme"},
		{"host unknown scheme", CheckHost, "ftp://engine", `scheme "ftp" is not one of`},
		{"host unix relative", CheckHost, "unix://docker.sock", "absolute path"},
		{"host unix empty", CheckHost, "unix://", "absolute path"},
		{"host tcp without port", CheckHost, "tcp://nowhere", "names no port: write tcp://nowhere:2376"},
		{"host tcp without host", CheckHost, "tcp://:2376", "names no host"},
		{"host tcp port out of range", CheckHost, "tcp://engine:70000", "not between 1 and 65535"},
		{"host tcp with a user", CheckHost, "tcp://me@engine:2376", "no user"},
		{"host ssh without host", CheckHost, "ssh://", "names no host"},
		{"host ssh with a query", CheckHost, "ssh://engine?x=1", "no query"},
		{"host npipe empty", CheckHost, "npipe://", "names the pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check(tt.value)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("%q refused: %v", tt.value, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("%q: error %v, want one containing %q", tt.value, err, tt.want)
			}
		})
	}
}

// TestCheckSSHPasswordRedacted keeps a password given in an ssh:// host
// out of the error that refuses it.
func TestCheckSSHPasswordRedacted(t *testing.T) {
	err := CheckHost("ssh://deploy:hunter2@engine.example.com")
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "password") {
		t.Errorf("CheckHost with a password = %v, want a refusal that does not show it", err)
	}
}

// TestOptionsCheckReportsEveryProblem checks that bad options are refused
// all at once, before any engine is contacted.
func TestOptionsCheckReportsEveryProblem(t *testing.T) {
	h := DefaultHardening()
	h.User, h.PidsLimit, h.MemoryMB, h.CPUs = "a:b:c", -1, 3, 0.001
	_, err := Options{
		Host: "http://nowhere", BaseImage: "Not An Image", AdvertiseHost: "not a host!!", Network: "no such net", RestartPolicy: "sometimes", Hardening: &h,
	}.withDefaults()
	if err == nil {
		t.Fatal("withDefaults accepted every bad option")
	}
	for _, attribute := range []string{"host", "base_image", "advertise_host", "network", "restart_policy", "hardening user", "hardening pids_limit", "hardening memory_mb", "hardening cpus"} {
		if !strings.Contains(err.Error(), "container "+attribute+":") {
			t.Errorf("error %q does not name %s", err, attribute)
		}
	}
	for _, ok := range []Hardening{{MemoryMB: MinMemoryMB, CPUs: MinCPUs}, {}} {
		if _, err := (Options{Hardening: &ok}).withDefaults(); err != nil {
			t.Errorf("withDefaults with hardening %+v: %v", ok, err)
		}
	}
}

// TestNewChecksOptionsFirst: options that cannot work are refused before
// the engine is contacted, here one listening on a socket of the test's
// own that no one may connect to.
func TestNewChecksOptionsFirst(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "engine.sock")
	var lc net.ListenConfig
	ln, err := lc.Listen(t.Context(), "unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var contacts atomic.Int32
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			contacts.Add(1)
			_ = c.Close()
		}
	}()
	tests := map[string]struct {
		opts    Options
		mention string
	}{
		"no state dir":     {Options{Host: "unix://" + sock}, "no state dir"},
		"a bad base_image": {Options{Host: "unix://" + sock, BaseImage: "Not An Image"}, "base_image"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := New(t.Context(), tt.opts); err == nil || !strings.Contains(err.Error(), tt.mention) {
				t.Fatalf("New = %v, want an error naming %s", err, tt.mention)
			}
		})
	}
	_ = ln.Close()
	<-accepted
	if n := contacts.Load(); n > 0 {
		t.Errorf("New contacted the engine %d times before refusing its options", n)
	}
}
