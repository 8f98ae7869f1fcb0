package agentcall

import (
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Verdict is what is known of a call that did not succeed.
type Verdict int

const (
	// Unsent: nothing of the call reached the agent (it could not be
	// resolved, connected to or spoken TLS with), so it was tried again,
	// as many times as allowed.
	Unsent Verdict = iota + 1
	// Refused: the agent read the call and declined it (HTTP 4xx, or an
	// A2A or JSON-RPC error saying the request was wrong or not allowed),
	// so it was not sent again: it would be declined again.
	Refused
	// InDoubt: the call was written but no answer says what became of it
	// (a timeout or broken connection after the write, HTTP 5xx, an
	// internal error, an answer that cannot be read). The agent may have
	// acted on it, so it was not sent again.
	InDoubt
	// Failed: the agent took the message and the task it made failed, or
	// it rejected the task.
	Failed
)

func (v Verdict) String() string {
	switch v {
	case Unsent:
		return "unsent"
	case Refused:
		return "refused"
	case InDoubt:
		return "in doubt"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("verdict %d", int(v))
}

// Error is a call that did not succeed, and what is known of it.
type Error struct {
	Verdict  Verdict
	URL      string
	Attempts int
	// Status is the HTTP status of the last answer; zero when none came.
	Status int
	// Task and State are those of a task that failed or was rejected.
	Task  string
	State a2a.TaskState
	Err   error
}

func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	switch e.Verdict {
	case Unsent:
		return fmt.Sprintf("the message did not reach the agent at %s (%d attempts, nothing sent): %v; check that the agent runs and that the URL is its JSON-RPC endpoint",
			e.URL, e.Attempts, e.Err)
	case Refused:
		return fmt.Sprintf("the agent at %s refused the message: %v; it was not sent again, as it would be refused again: fix the request (URL, headers, text) first",
			e.URL, e.Err)
	case InDoubt:
		return fmt.Sprintf("whether the agent at %s acted on the message is unknown: %v; it was not sent again, so that it is not acted on twice: check the agent (its logs, its tasks) before sending it again",
			e.URL, e.Err)
	default:
		return fmt.Sprintf("the agent at %s took the message, and its task %s ended %s: %v", e.URL, e.Task, StateName(e.State), e.Err)
	}
}

// refusals are the A2A errors (JSON-RPC -32700..-32602, -32001..-32009 and
// the SDK's authentication errors) by which an agent says it read a
// request and will not do it.
var refusals = []error{
	a2a.ErrParseError, a2a.ErrInvalidRequest, a2a.ErrMethodNotFound, a2a.ErrInvalidParams,
	a2a.ErrTaskNotFound, a2a.ErrTaskNotCancelable, a2a.ErrPushNotificationNotSupported,
	a2a.ErrUnsupportedOperation, a2a.ErrUnsupportedContentType, a2a.ErrInvalidAgentResponse,
	a2a.ErrExtendedCardNotConfigured, a2a.ErrExtensionSupportRequired, a2a.ErrVersionNotSupported,
	a2a.ErrUnauthenticated, a2a.ErrUnauthorized,
}

// failure classifies err, the error of a call whose attempts seen watched.
func (f *callFacts) failure(url string, err error) *Error {
	wrote, status, attempts := f.snapshot()
	e := &Error{URL: url, Attempts: attempts, Status: status, Err: err}
	switch {
	case !wrote && status == 0:
		e.Verdict = Unsent
	case status >= 500:
		e.Verdict = InDoubt
	case status >= 400:
		e.Verdict = Refused
	case isRefusal(err):
		e.Verdict = Refused
	default:
		// Internal and server errors, timeouts and broken connections
		// after the write, answers that cannot be read.
		e.Verdict = InDoubt
	}
	return e
}

func isRefusal(err error) bool {
	for _, r := range refusals {
		if errors.Is(err, r) {
			return true
		}
	}
	return false
}

// replyOf reads the agent's answer: a message, or a task, which must not
// have failed or been rejected.
func replyOf(url string, result a2a.SendMessageResult) (Reply, error) {
	switch r := result.(type) {
	case *a2a.Message:
		return Reply{Text: textOf(r.Parts)}, nil
	case *a2a.Task:
		reply := Reply{TaskID: string(r.ID), State: r.Status.State, Text: taskText(r)}
		switch r.Status.State {
		case a2a.TaskStateFailed:
			return reply, &Error{Verdict: Failed, URL: url, Attempts: 1, Task: reply.TaskID, State: reply.State, Err: errors.New(orNone(reply.Text))}
		case a2a.TaskStateRejected:
			return reply, &Error{Verdict: Refused, URL: url, Attempts: 1, Task: reply.TaskID, State: reply.State,
				Err: fmt.Errorf("it rejected task %s: %s", reply.TaskID, orNone(reply.Text))}
		}
		return reply, nil
	}
	return Reply{}, &Error{Verdict: InDoubt, URL: url, Attempts: 1, Err: fmt.Errorf("the answer is neither a message nor a task (%T)", result)}
}

func taskText(t *a2a.Task) string {
	var parts []string
	if t.Status.Message != nil {
		parts = append(parts, textOf(t.Status.Message.Parts))
	}
	for _, art := range t.Artifacts {
		parts = append(parts, textOf(art.Parts))
	}
	return strings.Join(nonEmpty(parts), "\n")
}

func textOf(parts []*a2a.Part) string {
	var texts []string
	for _, p := range parts {
		texts = append(texts, p.Text())
	}
	return strings.Join(nonEmpty(texts), "\n")
}

func nonEmpty(ss []string) []string {
	out := ss[:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func orNone(text string) string {
	if text == "" {
		return "no message given"
	}
	return text
}

// StateName is a task state as users read it: "TASK_STATE_FAILED" is
// "failed".
func StateName(s a2a.TaskState) string {
	return strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_"))
}
