package container

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/distribution/reference"
)

// The syntax of option values, checked without asking the engine (and
// without any DNS lookup), so that a mistake is reported before any
// engine is contacted. The provider's schema validates its block with the
// same rules.

// Limits the engines enforce on hardening. Docker and Podman refuse a
// memory limit below 6 MiB and a CPU limit below a hundredth of a core
// when they create the container; MaxMemoryMB keeps MemoryMB<<20 within
// an int64. The upper bound of CPUs is the engine host's core count, which
// only the engine knows.
const (
	MinMemoryMB = int64(6)
	MaxMemoryMB = int64(math.MaxInt64 >> 20)
	MinCPUs     = 0.01
)

// NetworkNamePattern is the network names both Docker and Podman accept
// (Podman refuses any other; Docker is more lenient).
var NetworkNamePattern = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]*$`)

// UnpublishedNetworks are network modes that take no published ports:
// agents on them could never be reached or probed at their port.
var UnpublishedNetworks = []string{"host", "none"}

// UserPattern is a container user: empty (the image's own user), a uid or
// user name, optionally followed by ":" and a gid or group name.
var UserPattern = regexp.MustCompile(`^$|^(` + userOrGroup + `)(:(` + userOrGroup + `))?$`)

// userOrGroup is a numeric id or a portable user or group name.
const userOrGroup = `[0-9]{1,10}|[A-Za-z_][A-Za-z0-9_.-]{0,31}`

// hostLabel is one label of a DNS name (RFC 1123).
const hostLabel = `[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?`

var hostnamePattern = regexp.MustCompile(`^` + hostLabel + `(\.` + hostLabel + `)*\.?$`)

// CheckNetwork explains what is wrong with a network name, or returns nil.
func CheckNetwork(name string) error {
	for _, mode := range UnpublishedNetworks {
		if name == mode {
			return fmt.Errorf("network %q publishes no ports, so the agents could not be reached: name a bridge or user-defined network", name)
		}
	}
	if !NetworkNamePattern.MatchString(name) {
		return fmt.Errorf("%q is not a network name: use letters, digits, '_', '.' and '-', starting with a letter or digit", name)
	}
	return nil
}

// CheckUser explains what is wrong with a container user, or returns nil.
func CheckUser(user string) error {
	if !UserPattern.MatchString(user) {
		return fmt.Errorf("%q is not a user: write a uid or user name, optionally with a gid or group name after a colon, such as \"65534:65534\" or \"nobody\"", user)
	}
	return nil
}

// CheckAdvertiseHost explains why host is neither an IP address nor a DNS
// host name, or returns nil. The name is not resolved.
func CheckAdvertiseHost(host string) error {
	if host == "" {
		return fmt.Errorf("the advertise host is empty: name a host or an IP address, such as %q", DefaultAdvertiseHost)
	}
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		if _, err := netip.ParseAddr(host[1 : len(host)-1]); err == nil {
			return fmt.Errorf("%q: write the IPv6 address without brackets, %q", host, host[1:len(host)-1])
		}
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if addr.Zone() != "" {
			return fmt.Errorf("%q: an address with a zone cannot publish ports; name the address without %q", host, "%"+addr.Zone())
		}
		return nil
	}
	labels := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(host) > 253 || !hostnamePattern.MatchString(host) || isNumber(labels[len(labels)-1]) {
		return fmt.Errorf("%q is neither an IP address nor a host name: use letters, digits and '-' in dot-separated labels, such as \"agents.example.com\", or an address such as %q", host, DefaultAdvertiseHost)
	}
	return nil
}

// CheckImage explains why ref is not an image reference or id, or
// returns nil. The engine is not asked whether it has the image.
func CheckImage(ref string) error {
	if _, err := reference.ParseAnyReference(ref); err != nil {
		return fmt.Errorf("%q is not an image reference (%w): write a name such as \"registry.example.com/team/agent:1.2\" or an image id", ref, err)
	}
	return nil
}

// CheckHost explains what an engine address lacks, or returns nil: each
// scheme needs its own parts. Nothing is resolved or dialled.
func CheckHost(host string) error {
	scheme, rest, ok := strings.Cut(host, "://")
	if !ok {
		return fmt.Errorf("engine host %q has no scheme: write unix:///path/to/docker.sock, tcp://host:port or ssh://[user@]host[:port]", host)
	}
	switch scheme {
	case "unix":
		if !strings.HasPrefix(rest, "/") {
			return fmt.Errorf("engine host %q: a unix:// host is the socket's absolute path, such as unix:///var/run/docker.sock", host)
		}
	case "npipe":
		if rest == "" {
			return fmt.Errorf("engine host %q: an npipe:// host names the pipe, such as npipe:////./pipe/docker_engine", host)
		}
	case "tcp":
		return checkTCPHost(host)
	case "ssh":
		return checkSSHHost(host)
	case "http", "https":
		return fmt.Errorf("engine host %q: write tcp:// instead of %s://, with the port, such as tcp://%s; TLS comes from tls_ca_cert, tls_cert, tls_key and tls_verify", host, scheme, withPort(rest))
	default:
		return fmt.Errorf("engine host %q: scheme %q is not one of unix://, tcp://, ssh:// or npipe://", host, scheme)
	}
	return nil
}

func checkTCPHost(host string) error {
	u, err := url.Parse(host)
	switch {
	case err != nil:
		return fmt.Errorf("engine host %q is not a URL: %w", host, urlProblem(err))
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("engine host %q: a tcp:// host is only tcp://host:port, with no user, query or fragment", host)
	case u.Hostname() == "":
		return fmt.Errorf("engine host %q names no host: write tcp://host:port, such as tcp://127.0.0.1:2376", host)
	case u.Port() == "":
		return fmt.Errorf("engine host %q names no port: write tcp://%s:2376 (2375 without TLS)", host, u.Host)
	}
	if p, err := strconv.Atoi(u.Port()); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("engine host %q: port %s is not between 1 and 65535", host, u.Port())
	}
	return nil
}

func checkSSHHost(host string) error {
	u, err := url.Parse(host)
	switch {
	case err != nil:
		return fmt.Errorf("engine host %q is not a URL: %w", host, urlProblem(err))
	case u.Hostname() == "":
		return fmt.Errorf("engine host %q names no host: write ssh://[user@]host[:port]", host)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("engine host %q: an ssh:// host takes no query or fragment", host)
	}
	if _, set := u.User.Password(); set {
		return fmt.Errorf("engine host %q holds a password, which ssh:// does not take: use an ssh key or agent", u.Redacted())
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("engine host %q: port %s is not between 1 and 65535", host, p)
		}
	}
	return nil
}

// urlProblem is a URL parse error without the URL, which the caller names.
func urlProblem(err error) error {
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// withPort suggests rest with the engine's usual TLS port when it has none.
func withPort(rest string) string {
	hostport, _, _ := strings.Cut(rest, "/")
	if u, err := url.Parse("tcp://" + hostport); err == nil && u.Port() != "" {
		return hostport
	}
	return hostport + ":2376"
}

var number = regexp.MustCompile(`^[0-9]+$`)

func isNumber(s string) bool { return number.MatchString(s) }
