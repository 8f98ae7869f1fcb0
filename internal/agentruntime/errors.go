package agentruntime

import (
	"errors"
	"fmt"
	"strings"
)

// Kind classifies runtime errors so callers can branch on them.
type Kind int

const (
	KindNotFound Kind = iota + 1
	KindAlreadyRunning
	KindConflict
	KindSpawnFailure
	KindInvalidConfig
	KindBackend
	KindDisallowedEnv
	KindUnsupported
	// KindUnsetEnv: a variable the config needs has no value and no default.
	KindUnsetEnv
	// KindDamaged: the runtime's record of the agent cannot be used (a
	// file truncated, invalid or missing). It concerns that agent only.
	KindDamaged
	// KindUnmanaged: an agent with the id runs that no record manages,
	// such as one of a state dir that was moved or lost.
	KindUnmanaged
	// KindNotRunning: what was asked needs the agent running, and it is
	// not.
	KindNotRunning
)

// Error is a runtime error: what was attempted, on which agent, and what the
// operator can do about it.
type Error struct {
	Kind Kind
	Op   string
	ID   string
	Msg  string
	// Vars names every offending variable of a KindDisallowedEnv error.
	Vars []string
	// Setting names the provider block setting at fault, such as
	// container.base_image, when the error concerns no agent's config.
	Setting string
	Err     error
}

func newError(kind Kind, op, id, msg string, cause error) *Error {
	return &Error{Kind: kind, Op: op, ID: id, Msg: msg, Err: cause}
}

// Errorf builds a runtime error; adapters use it so messages share a shape.
func Errorf(kind Kind, op, id string, cause error, format string, args ...any) *Error {
	return newError(kind, op, id, fmt.Sprintf(format, args...), cause)
}

// Wrap builds a runtime error whose cause says all there is to say.
func Wrap(kind Kind, op, id string, cause error) *Error {
	return newError(kind, op, id, "", cause)
}

// NotFound is the error for an id the runtime does not know.
func NotFound(op, id string) *Error {
	return newError(KindNotFound, op, id, "no such agent", nil)
}

// Unsupported names the operation an adapter cannot do and what would make it possible.
func Unsupported(op, id, remedy string) *Error {
	return newError(KindUnsupported, op, id, "not supported by this adapter: "+remedy, nil)
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.ID != "" {
		fmt.Fprintf(&b, " agent %q", e.ID)
	}
	e.writeDetail(&b)
	return b.String()
}

// Detail is the error without the operation and agent it concerns, for a
// message whose summary already names them: what went wrong and what to do.
func (e *Error) Detail() string {
	var b strings.Builder
	e.writeDetail(&b)
	return b.String()
}

func (e *Error) writeDetail(b *strings.Builder) {
	for _, part := range []string{e.Msg, e.cause()} {
		if part == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(part)
	}
}

func (e *Error) cause() string {
	if e.Err == nil {
		return ""
	}
	return e.Err.Error()
}

// Detail returns err's Detail when it is a runtime error, else its text.
func Detail(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Detail()
	}
	return err.Error()
}

// SettingOf is the provider block setting err concerns, or empty when it
// concerns none.
func SettingOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Setting
	}
	return ""
}

func (e *Error) Unwrap() error { return e.Err }

// IsKind reports whether err is a runtime error of kind k.
func IsKind(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}
