package agenthost

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// maxIDBytes bounds an id a client sends. PostgreSQL indexes task ids, and
// an index entry past about 2.7 kB is refused, so a longer id would be
// refused by one store and kept by the other.
const maxIDBytes = 1024

// checkID refuses an id that every store could not keep as written: text
// PostgreSQL refuses (a NUL byte, bytes that are not UTF-8), and, since no
// id needs them and logs and terminals would show them raw, any control
// character. field names the id in the request, as the error says it.
func checkID(field, id string) error {
	problem := ""
	switch {
	case len(id) > maxIDBytes:
		problem = fmt.Sprintf("is %d bytes long", len(id))
	case !utf8.ValidString(id):
		problem = "is not UTF-8 text"
	default:
		if at := strings.IndexFunc(id, unicode.IsControl); at >= 0 {
			r, _ := utf8.DecodeRuneInString(id[at:])
			problem = fmt.Sprintf("holds the control character %U at byte %d", r, at)
		}
	}
	if problem == "" {
		return nil
	}
	return fmt.Errorf("%w: %s %s; an id is UTF-8 text of at most %d bytes without control characters", a2a.ErrInvalidParams, field, problem, maxIDBytes)
}

// idCheck refuses a call whose task, context or message ids checkID
// refuses, before any store reads them, so that the memory store and
// PostgreSQL answer such a call alike: as invalid params naming the id,
// where PostgreSQL's refusal surfaced as an internal error in its own
// words and the memory store found no such task.
type idCheck struct {
	a2asrv.PassthroughCallInterceptor
}

func (idCheck) Before(ctx context.Context, _ *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	for _, id := range requestIDs(req.Payload) {
		if err := checkID(id.field, id.value); err != nil {
			return ctx, nil, err
		}
	}
	return ctx, nil, nil
}

// namedID is an id of a request and the name it has there.
type namedID struct{ field, value string }

// requestIDs returns the ids of a request.
func requestIDs(payload any) []namedID {
	switch p := payload.(type) {
	case *a2a.SendMessageRequest:
		if p.Message == nil {
			return nil
		}
		ids := []namedID{{"message.messageId", p.Message.ID}, {"message.taskId", string(p.Message.TaskID)}, {"message.contextId", p.Message.ContextID}}
		for i, ref := range p.Message.ReferenceTasks {
			ids = append(ids, namedID{fmt.Sprintf("message.referenceTaskIds[%d]", i), string(ref)})
		}
		return ids
	case *a2a.GetTaskRequest:
		return []namedID{{"id", string(p.ID)}}
	case *a2a.CancelTaskRequest:
		return []namedID{{"id", string(p.ID)}}
	case *a2a.SubscribeToTaskRequest:
		return []namedID{{"id", string(p.ID)}}
	case *a2a.ListTasksRequest:
		return []namedID{{"contextId", p.ContextID}}
	case *a2a.PushConfig:
		return []namedID{{"taskId", string(p.TaskID)}, {"id", p.ID}}
	case *a2a.GetTaskPushConfigRequest:
		return []namedID{{"taskId", string(p.TaskID)}, {"id", p.ID}}
	case *a2a.ListTaskPushConfigRequest:
		return []namedID{{"taskId", string(p.TaskID)}}
	case *a2a.DeleteTaskPushConfigRequest:
		return []namedID{{"taskId", string(p.TaskID)}, {"id", p.ID}}
	}
	return nil
}
