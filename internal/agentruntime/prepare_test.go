package agentruntime

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

func TestPrepare(t *testing.T) {
	allow := &EnvAllowlist{Name: "keys", Variables: []string{"SIGNING_KEY", "UNSET_TOKEN"}}
	tests := []struct {
		name       string
		allow      *EnvAllowlist
		writeOnly  WriteOnlyValues
		config     string
		wantInject []string
		wantKind   Kind // zero: Prepare succeeds
		wantText   []string
	}{
		{"valid", nil, nil, "[agent]\nname = \"a\"\n", nil, 0, nil},
		{
			"signing key from an allowlisted variable is left to the start", allow, nil,
			"[agent]\nname = \"a\"\n[card]\nsigning_key = \"${SIGNING_KEY}\"\n", []string{"SIGNING_KEY"}, 0, nil,
		},
		{
			"allowlisted variable unset in the environment", allow, nil,
			"[agent]\nname = \"a\"\n[auth]\nbearer_token = \"${UNSET_TOKEN}\"\n",
			nil, KindUnsetEnv, []string{"UNSET_TOKEN (agent config line 4, column 17)", "env_wo"},
		},
		{
			"allowlisted variable unset but defaulted", allow, nil,
			"[agent]\nname = \"a\"\ndescription = \"${UNSET_TOKEN:-none}\"\n", []string{"UNSET_TOKEN"}, 0, nil,
		},
		{
			"write-only value needs no allowlist and is not injected", nil, WriteOnlyValues{"UNSET_TOKEN": "s3cret"},
			"[agent]\nname = \"a\"\n[auth]\nbearer_token = \"${UNSET_TOKEN}\"\n", nil, 0, nil,
		},
		{
			"write-only value takes the place of an allowlisted variable", allow, WriteOnlyValues{"SIGNING_KEY": "pem"},
			"[agent]\nname = \"a\"\ndescription = \"${SIGNING_KEY}\"\n", nil, 0, nil,
		},
		{
			"literal signing key that is not a key", nil, nil,
			"[agent]\nname = \"a\"\n[card]\nsigning_key = \"not a key\"\n", nil, KindInvalidConfig,
			[]string{"line 4, column 1", "[card] signing key: no PEM private key found"},
		},
		{
			"config the parser refuses", nil, nil,
			"[agent]\nname = \"a\"\n[server]\nhost = \"${HOST}\"\n", nil, KindInvalidConfig,
			[]string{"line 4, column 1", "server.host must be literal"},
		},
		{
			"write-only value of a variable the runtime sets", nil, WriteOnlyValues{"PORT": "1", "API_KEY": "k", "A2A_ADVERTISED_URL": "u"},
			"[agent]\nname = \"a\"\n", nil, KindInvalidConfig, []string{"env_wo names A2A_ADVERTISED_URL, PORT, which the runtime sets"},
		},
		{
			"disallowed variable is named before anything is parsed", nil, nil,
			"[agent]\nname = \"a\"\n[card]\nsigning_key = \"${SIGNING_KEY}\"\ncolour = 1\n", nil, KindDisallowedEnv,
			[]string{"SIGNING_KEY"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SIGNING_KEY", "from the environment")
			p, err := Prepare(Spec{Config: []byte(tt.config), Allowlist: tt.allow, WriteOnly: tt.writeOnly})
			if tt.wantKind == 0 {
				if err != nil {
					t.Fatalf("Prepare() = %v, want no error", err)
				}
				if p.Config == nil || !reflect.DeepEqual(p.InjectedEnv, tt.wantInject) {
					t.Errorf("Prepare() = %+v, want a config and InjectedEnv %v", p, tt.wantInject)
				}
				return
			}
			if !IsKind(err, tt.wantKind) {
				t.Fatalf("Prepare() = %v, want an error of kind %d", err, tt.wantKind)
			}
			if tt.wantKind == KindInvalidConfig && tt.writeOnly == nil {
				// A refused config is located in it; refused write-only
				// values are not the config's.
				var cerr *agentconfig.Error
				if !errors.As(err, &cerr) {
					t.Errorf("Prepare() = %v, want it to wrap the located *agentconfig.Error", err)
				}
			}
			for _, w := range tt.wantText {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Prepare() = %q, want it to mention %q", err, w)
				}
			}
		})
	}
}
