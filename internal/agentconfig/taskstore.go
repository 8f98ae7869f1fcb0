package agentconfig

import (
	"errors"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// refMark stands for a reference without a default while a connection
// string is read: the variable's value is known only to the agent host. It
// is text every part of a connection string can hold, so that the driver's
// parser reads the string around it as it will read the expanded one.
const refMark = "a2aRefMark9"

// checkTaskStore reports what is wrong with [tasks] store, or "" when
// nothing is. The connection string holds the database's password, a
// secret: written literally it would reach Terraform state and plans, so
// a password must come from a variable, the whole connection string or
// the password alone. The string is read by the driver the agent host
// connects with (pgx), so that no spelling the driver takes for a password
// (percent-encoded keys, odd separators, characters a URL parser reads
// otherwise) gets past. Messages never quote the value.
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
	form := "key=value settings"
	if _, ok := cutScheme(masked); ok {
		form = "URL"
	} else if !strings.Contains(masked, "=") {
		return `tasks.store is not a PostgreSQL connection string: write a URL such as "postgres://tasks@db.example.com:5432/tasks", ` +
			`key=value settings such as "host=db.example.com dbname=tasks user=tasks", or a reference to a variable holding one, such as "${TASKS_STORE}"`
	}
	sets, err := setsPassword(masked)
	if err != nil {
		return "tasks.store is not a PostgreSQL connection string the driver can read (" + err.Error() + "): write a URL such as " +
			`"postgres://tasks@db.example.com:5432/tasks" or key=value settings such as "host=db.example.com dbname=tasks user=tasks"`
	}
	if sets && !passwordIsReference(masked, form) {
		return "tasks.store writes the database password literally in the " + form + ", so Terraform would keep it in state and show it " +
			`in plans: reference a variable instead, for the whole connection string (store = "${TASKS_STORE}") or for the password ` +
			`alone (postgres://tasks:${TASKS_DB_PASSWORD}@db.example.com/tasks), and list the variable in the agent's a2a_env_allowlist. ` +
			"In a config written inline (a heredoc), write $${...}, as Terraform would otherwise interpolate ${...} itself"
	}
	return ""
}

func cutScheme(conn string) (string, bool) {
	for _, scheme := range []string{"postgres://", "postgresql://"} {
		if rest, ok := strings.CutPrefix(conn, scheme); ok {
			return rest, true
		}
	}
	return "", false
}

// refusedKey reads the key pgx names when a connection string holds one
// outside ConnStringAllowedKeys. pgx checks the keys right after it has
// read the string's settings, before it looks at any file or value, so the
// check sees exactly the keys the agent host's driver will act on.
var refusedKey = regexp.MustCompile(`connection string key "([^"]*)" is not in ConnStringAllowedKeys`)

// quoted is a quoted fragment of pgx's reason, which may be a piece of the
// string and so of its password.
var quoted = regexp.MustCompile(`"[^"]*"`)

// setsPassword says whether the connection string itself sets a password,
// by pgx's own reading of it: every key the string holds but "password" is
// allowed in turn, until pgx either names "password" or accepts the keys.
// An error is a string pgx cannot read at all.
func setsPassword(conn string) (bool, error) {
	// A non-nil empty list allows no key; each key takes a character.
	allowed := []string{}
	for range len(conn) {
		_, err := pgconn.ParseConfigWithOptions(conn, pgconn.ParseConfigOptions{ConnStringAllowedKeys: allowed})
		if err == nil {
			return false, nil
		}
		m := refusedKey.FindStringSubmatch(err.Error())
		switch {
		case m == nil && unreadable(err):
			reason := "its syntax is not one the driver reads"
			if inner := errors.Unwrap(err); inner != nil {
				reason = quoted.ReplaceAllString(inner.Error(), `"…"`)
			}
			return false, errors.New(reason)
		case m == nil:
			// Past the key check: what fails now (a file, a port) is the
			// agent host's to read with the real values.
			return false, nil
		case m[1] == "password":
			return true, nil
		}
		allowed = append(allowed, m[1])
	}
	return false, errors.New("it names more settings than it has characters")
}

// unreadable says whether pgx failed to read a string's settings at all,
// which it does before it checks their keys.
func unreadable(err error) bool {
	text := err.Error()
	return strings.Contains(text, "failed to parse as URL") || strings.Contains(text, "failed to parse as keyword/value")
}

// passwordIsReference says whether the password a connection string sets
// is one reference and nothing more. It reads the password as pgx does,
// with the settings that make pgx look at files (TLS, a password file)
// turned off, as they name files on the agent host's machine, not here.
// Where pgx still cannot read the string (a service file, say), a string
// with references is given the benefit of the doubt and one without is
// not: its password can only be literal.
func passwordIsReference(conn, form string) bool {
	neutral := " sslmode=disable passfile=/dev/null"
	if form == "URL" {
		rest, _ := cutScheme(conn)
		if at := strings.IndexAny(rest, "@/"); at >= 0 && rest[at] == '@' {
			rest = rest[at+1:]
		}
		sep := "?"
		if strings.Contains(rest, "?") {
			sep = "&"
		}
		neutral = sep + "sslmode=disable&passfile=/dev/null"
	}
	// A reference where a number goes reads as one on the second try.
	for _, mark := range []string{refMark, "5432"} {
		cfg, err := pgconn.ParseConfig(strings.ReplaceAll(conn, refMark, mark) + neutral)
		if err == nil {
			return cfg.Password == mark || cfg.Password == ""
		}
	}
	return strings.Contains(conn, refMark)
}
