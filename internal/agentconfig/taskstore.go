package agentconfig

import (
	"strings"
)

// refMark stands for a reference without a default while a connection
// string is read: the variable's value is known only to the agent host.
const refMark = "\x00ref\x00"

// checkTaskStore reports what is wrong with [tasks] store, or "" when
// nothing is. The connection string holds the database's password, a
// secret: written literally it would reach Terraform state and plans, so
// a password must come from a variable, the whole connection string or
// the password alone. Messages never quote the value.
func checkTaskStore(store string) string {
	if store == "" {
		return ""
	}
	// A reference with a default is as literal as its default.
	masked := Substitute(store, func(s string) string { return s }, func(_, def string, hasDefault bool) string {
		if hasDefault {
			return def
		}
		return refMark
	})
	if masked == refMark {
		return ""
	}
	password, form := connPassword(masked)
	switch {
	case form == "":
		return `tasks.store is not a PostgreSQL connection string: write a URL such as "postgres://tasks@db.example.com:5432/tasks", ` +
			`key=value settings such as "host=db.example.com dbname=tasks user=tasks", or a reference to a variable holding one, such as "${TASKS_STORE}"`
	case password != "" && password != refMark:
		return "tasks.store writes the database password literally in the " + form + ", so Terraform would keep it in state and show it " +
			`in plans: reference a variable instead, for the whole connection string (store = "${TASKS_STORE}") or for the password ` +
			`alone (postgres://tasks:${TASKS_DB_PASSWORD}@db.example.com/tasks), and list the variable in the agent's a2a_env_allowlist. ` +
			"In a config written inline (a heredoc), write $${...}, as Terraform would otherwise interpolate ${...} itself"
	}
	return ""
}

// connPassword finds the password a connection string sets, and names the
// form the string is in ("URL" or "key=value settings"); form is "" when
// the string is neither. It reads the string as libpq does, but only as
// far as the password: the agent host's driver checks the rest.
func connPassword(conn string) (password, form string) {
	if rest, ok := cutScheme(conn); ok {
		return urlPassword(rest), "URL"
	}
	if !strings.Contains(conn, "=") {
		return "", ""
	}
	settings := keyValues(conn)
	return settings["password"], "key=value settings"
}

func cutScheme(conn string) (string, bool) {
	for _, scheme := range []string{"postgres://", "postgresql://"} {
		if rest, ok := strings.CutPrefix(conn, scheme); ok {
			return rest, true
		}
	}
	return "", false
}

// urlPassword is the password of a postgres:// URL after its scheme: in
// its user info, or in a password query parameter, which libpq also reads.
func urlPassword(rest string) string {
	authority, query := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
		if q := strings.IndexByte(rest, '?'); q >= 0 {
			query, _, _ = strings.Cut(rest[q+1:], "#")
		}
	}
	for _, param := range strings.Split(query, "&") {
		if value, ok := strings.CutPrefix(param, "password="); ok && value != "" {
			return value
		}
	}
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		if _, password, ok := strings.Cut(authority[:at], ":"); ok {
			return password
		}
	}
	return ""
}

// keyValues reads libpq's key=value settings: keys and values separated
// by spaces, a value in single quotes when it holds spaces, and a
// backslash escaping the next character.
func keyValues(conn string) map[string]string {
	settings := map[string]string{}
	s := conn
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return settings
		}
		key := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " \t\r\n")
		var value strings.Builder
		quoted := strings.HasPrefix(s, "'")
		if quoted {
			s = s[1:]
		}
		i := 0
		for ; i < len(s); i++ {
			c := s[i]
			if c == '\\' && i+1 < len(s) {
				i++
				value.WriteByte(s[i])
				continue
			}
			if quoted && c == '\'' || !quoted && strings.IndexByte(" \t\r\n", c) >= 0 {
				i++
				break
			}
			value.WriteByte(c)
		}
		settings[key] = value.String()
		s = s[i:]
	}
}
