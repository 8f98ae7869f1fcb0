package agentruntime

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCheckEnv(t *testing.T) {
	allow := &EnvAllowlist{Name: "llm", Variables: []string{"API_KEY", "UNUSED"}}
	tests := []struct {
		name       string
		allow      *EnvAllowlist
		config     string
		wantInject []string
		wantDenied []string
		wantText   string
	}{
		{"no references, no allowlist", nil, `name = "a"`, nil, nil, ""},
		{"HOST is exempt and never injected", nil, `host = "${HOST:-127.0.0.1}"`, nil, nil, ""},
		{"deny by default", nil, `k = "${API_KEY}"`, nil, []string{"API_KEY"},
			"disallowed variables API_KEY (agent config line 1, column 6): the agent names no env_allowlist"},
		{"allowed and referenced is injected", allow, `k = "${API_KEY}"`, []string{"API_KEY"}, nil, ""},
		{"every offending variable is named where first referenced", allow, "a = \"${SECRET}\" b = \"${API_KEY}\"\nc = \"${TOKEN:-x}\" d = \"${SECRET}\"", nil,
			[]string{"SECRET", "TOKEN"}, `SECRET (agent config line 1, column 6), TOKEN (agent config line 2, column 6): env allowlist "llm" does not allow them`},
		// The check reads raw text, so a reference in a comment counts too: a
		// refused config must not be parsed to find out which secrets exist.
		{"references in comments count", nil, "# ${SECRET}\nname = \"a\"", nil, []string{"SECRET"},
			"SECRET (agent config line 1, column 3, in a comment)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inject, err := CheckEnv(tt.allow, nil, []byte(tt.config))
			if tt.wantDenied != nil {
				var rerr *Error
				if !errors.As(err, &rerr) || !IsKind(err, KindDisallowedEnv) {
					t.Fatalf("CheckEnv() error = %v, want a disallowed-env error", err)
				}
				if !reflect.DeepEqual(rerr.Vars, tt.wantDenied) {
					t.Errorf("Vars = %v, want %v", rerr.Vars, tt.wantDenied)
				}
				for _, v := range tt.wantDenied {
					if !strings.Contains(err.Error(), v) {
						t.Errorf("error %q does not name %s", err, v)
					}
				}
				if tt.wantText != "" && !strings.Contains(err.Error(), tt.wantText) {
					t.Errorf("error %q does not say %q", err, tt.wantText)
				}
				if strings.HasPrefix(err.Error(), "check") {
					t.Errorf("error %q starts with the internal operation", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(inject, tt.wantInject) {
				t.Errorf("inject = %v, want %v", inject, tt.wantInject)
			}
		})
	}
}

func TestEnvAllowlistValidate(t *testing.T) {
	tests := []struct {
		list    EnvAllowlist
		wantErr string
	}{
		{EnvAllowlist{Name: "ok", Variables: []string{"A", "_B1"}}, ""},
		{EnvAllowlist{Name: "Not OK"}, `try "not-ok"`},
		{EnvAllowlist{Name: "", Variables: []string{"A"}}, "name is empty"},
		{EnvAllowlist{Name: "ok", Variables: []string{"1A", "A-B", "C"}}, "1A, A-B"},
	}
	for _, tt := range tests {
		err := tt.list.Validate()
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("Validate(%+v) = %v, want nil", tt.list, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !IsKind(err, KindInvalidConfig) {
			t.Errorf("Validate(%+v) = %v, want an invalid-config error containing %q", tt.list, err, tt.wantErr)
		}
	}
}

func TestErrorsMatchByKind(t *testing.T) {
	err := NotFound("start", "a")
	if !IsKind(err, KindNotFound) || IsKind(err, KindBackend) {
		t.Errorf("errors.Is does not match by kind: %v", err)
	}
	if got := err.Error(); got != `start agent "a": no such agent` {
		t.Errorf("Error() = %q", got)
	}
	u := Unsupported("provision", "a", "use the container adapter")
	if !IsKind(u, KindUnsupported) || !strings.Contains(u.Error(), "use the container adapter") {
		t.Errorf("Unsupported() = %v", u)
	}
}

func TestCheckEnvSuggestsAllowedVariables(t *testing.T) {
	allow := &EnvAllowlist{Name: "llm", Variables: []string{"MY_APIKEY", "OPENAI_BASE_URL"}}
	tests := []struct {
		name      string
		allow     *EnvAllowlist
		writeOnly []string
		config    string
		want      []string // each in the message
		wantNot   string
	}{
		{"an underscore more than the allowlist's", allow, nil, `k = "${MY_API_KEY}"`,
			[]string{"MY_API_KEY (agent config line 1, column 6; did you mean MY_APIKEY?)"}, ""},
		{"a slip in an env_wo name", nil, []string{"BEARER_TOKEN"}, `k = "${BEARER_TOKNE}"`,
			[]string{"BEARER_TOKNE (agent config line 1, column 6; did you mean BEARER_TOKEN?)"}, ""},
		{"each denied variable its own suggestion", allow, []string{"SIGNING_KEY"},
			"a = \"${OPENAI_BASEURL}\"\nb = \"${SIGNINGKEY}\"\nc = \"${UNRELATED}\"",
			[]string{"OPENAI_BASEURL (agent config line 1, column 6; did you mean OPENAI_BASE_URL?)",
				"SIGNINGKEY (agent config line 2, column 6; did you mean SIGNING_KEY?)",
				"UNRELATED (agent config line 3, column 6)"}, "UNRELATED (agent config line 3, column 6;"},
		{"nothing close", allow, []string{"TOKEN"}, `k = "${SECRET}"`,
			[]string{"SECRET (agent config line 1, column 6)"}, "did you mean"},
		{"no allowlist and nothing written only", nil, nil, `k = "${MY_API_KEY}"`,
			[]string{"MY_API_KEY (agent config line 1, column 6)"}, "did you mean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CheckEnv(tt.allow, tt.writeOnly, []byte(tt.config))
			if !IsKind(err, KindDisallowedEnv) {
				t.Fatalf("CheckEnv() error = %v, want a disallowed-env error", err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if tt.wantNot != "" && strings.Contains(err.Error(), tt.wantNot) {
				t.Errorf("error %q says %q", err, tt.wantNot)
			}
		})
	}
}
