package agentruntime

import (
	"regexp"
	"strings"
	"testing"
)

// dnsLabel is RFC 1123's label, what a Service name must be.
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

func TestObjectName(t *testing.T) {
	long := strings.Repeat("abcdefghi-", 6) + "xyz" // 63, the longest id
	cases := []struct {
		scope, id, want string
	}{
		{"", "echo", "a2a-echo"},
		{"rt", "kube", "a2a-kube--rt"},
		{"", "rt-kube", "a2a-rt-kube"},
		{"a--b", "c", "a2a-c--a--b"},
		{"", long, "a2a-abcdefghi-abcdefghi-abcdefghi-abcdefghi---"},
		{"team", long, "a2a-abcdefghi-abcdefghi-abcdefghi-abcdefghi---"},
	}
	for _, c := range cases {
		got := ObjectName(c.scope, c.id)
		if !strings.HasPrefix(got, c.want) || (len(c.id) < 40 && got != c.want) {
			t.Errorf("ObjectName(%q, %q) = %q, want %q", c.scope, c.id, got, c.want)
		}
		if !dnsLabel.MatchString(got) {
			t.Errorf("ObjectName(%q, %q) = %q, not a DNS label of at most 63 characters", c.scope, c.id, got)
		}
	}
	if ObjectName("", long) == ObjectName("team", long) {
		t.Error("a long id gets one name in two scopes")
	}
}

// TestObjectNamesNeverMeet names every agent of small alphabets of ids and
// scopes, the long ones and those made of each other's parts included, and
// finds no name given twice: the old names met, such as scope "rt" with id
// "kube" and the default scope with id "rt-kube".
func TestObjectNamesNeverMeet(t *testing.T) {
	ids := []string{"a", "b", "a-b", "b-a", "a-b-a", "rt", "kube", "rt-kube", "kube-rt", "a2a", "a2a-b", "x1"}
	scopes := []string{"", "a", "b", "a-b", "b-a", "a--b", "a---b", "rt", "kube", "1", "0a", "a2a"}
	// Ids of 40 to 63 characters sharing their first 40, which is all a cut
	// name keeps of them, and the digests' own shape.
	stem := strings.Repeat("x", 39)
	for _, tail := range []string{"", "y", "y-z", strings.Repeat("z", 23), "y-" + strings.Repeat("0", 16)} {
		ids = append(ids, stem+"a"+tail, stem+"-"+strings.TrimPrefix(tail+"a", "-"))
	}
	seen := map[string][2]string{}
	for _, scope := range scopes {
		for _, id := range ids {
			if !validID(id) {
				continue
			}
			name := ObjectName(scope, id)
			if other, taken := seen[name]; taken {
				t.Errorf("scope %q id %q and scope %q id %q are both named %q", scope, id, other[0], other[1], name)
			}
			seen[name] = [2]string{scope, id}
			if !dnsLabel.MatchString(name) {
				t.Errorf("ObjectName(%q, %q) = %q, not a DNS label of at most 63 characters", scope, id, name)
			}
		}
	}
}

// validID is agentconfig's rule for ids, which this package does not import.
func validID(id string) bool {
	return len(id) <= 63 && regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`).MatchString(id)
}

func TestValidScope(t *testing.T) {
	for scope, want := range map[string]bool{
		"default": true, "t0a1": true, "a--b": true, "12345678901234567890": true,
		"": false, "-a": false, "a-": false, "A": false, "a_b": false, "123456789012345678901": false,
	} {
		if got := ValidScope(scope); got != want {
			t.Errorf("ValidScope(%q) = %v, want %v", scope, got, want)
		}
	}
}
