package agenthost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
)

const (
	// llmTimeout bounds one chat completion; models can take a while, but a
	// hung endpoint must not hold a task open forever.
	llmTimeout = 2 * time.Minute
	// maxCompletionBytes bounds how much of an endpoint's answer is read.
	maxCompletionBytes = 4 << 20
	// maxErrorDetail bounds how much of an endpoint's error text reaches a client.
	maxErrorDetail = 300
	// waitingPerSlot bounds the tasks waiting for a free call slot:
	// max_concurrent_calls × waitingPerSlot of them at most, so none waits
	// behind more than waitingPerSlot calls a slot, each bounded by
	// llmTimeout. A task beyond that is refused, not queued without end.
	waitingPerSlot = 4
)

// llmAgent answers each message with one call to an OpenAI-compatible
// chat-completions endpoint. Its work can take seconds, so it runs as a task
// the client can poll, stream or cancel.
type llmAgent struct {
	cancelByStatus
	endpoint     string
	model        string
	apiKey       string
	systemPrompt string
	client       *http.Client
	// slots holds one token per call in flight, capping them; admitted,
	// one per task running or waiting for a slot, capping those.
	slots    chan struct{}
	admitted chan struct{}
	// redact hides expanded values (a key or a URL with a token in it)
	// in the errors the agent reports.
	redact *redactor
}

func newLLMAgent(cfg *agentconfig.LLM, redact *redactor) (*llmAgent, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if err := agentconfig.CheckHTTPURL("handler.llm.base_url", cfg.BaseURL, "https://api.openai.com/v1"); err != nil {
		return nil, err
	}
	return &llmAgent{
		endpoint:     strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions",
		model:        cfg.Model,
		apiKey:       cfg.APIKey,
		systemPrompt: cfg.SystemPrompt,
		client:       &http.Client{Timeout: llmTimeout},
		slots:        make(chan struct{}, max(cfg.MaxConcurrentCalls, 1)),
		admitted:     make(chan struct{}, max(cfg.MaxConcurrentCalls, 1)*(1+waitingPerSlot)),
		redact:       redact,
	}, nil
}

func (l *llmAgent) Execute(ctx context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		texts, err := textParts(execCtx.Message)
		if err != nil {
			yield(nil, err)
			return
		}
		select {
		case l.admitted <- struct{}{}:
			defer func() { <-l.admitted }()
		default:
			yield(nil, l.busyError())
			return
		}
		if execCtx.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(execCtx, execCtx.Message), nil) {
				return
			}
		}
		if !yield(a2a.NewStatusUpdateEvent(execCtx, a2a.TaskStateWorking, nil), nil) {
			return
		}
		callCtx, stop := whileClientWaits(ctx)
		defer stop()
		reply, err := l.complete(callCtx, strings.Join(texts, "\n"))
		if ctx.Err() != nil {
			return // canceled: the cancelation has already set the task's state
		}
		if callCtx.Err() != nil {
			gone := a2a.NewMessageForTask(a2a.MessageRoleAgent, execCtx, a2a.NewTextPart("canceled: the client waiting for this task went away"))
			yield(a2a.NewStatusUpdateEvent(execCtx, a2a.TaskStateCanceled, gone), nil)
			return
		}
		if err != nil {
			explanation := a2a.NewMessageForTask(a2a.MessageRoleAgent, execCtx, a2a.NewTextPart(err.Error()))
			yield(a2a.NewStatusUpdateEvent(execCtx, a2a.TaskStateFailed, explanation), nil)
			return
		}
		if !yield(a2a.NewArtifactEvent(execCtx, a2a.NewTextPart(reply)), nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(execCtx, a2a.TaskStateCompleted, nil), nil)
	}
}

// busyError refuses a task when as many wait for a call slot as may.
func (l *llmAgent) busyError() error {
	calls := cap(l.slots)
	return a2a.NewError(a2a.ErrInternalError, fmt.Sprintf("this agent is busy: handler.llm.max_concurrent_calls = %d model calls are running "+
		"and %d more tasks wait for a free slot, the most that may wait; send this message again once some finish",
		calls, cap(l.admitted)-calls))
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
}

type chatError struct {
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

// complete sends one prompt and returns the first choice's content. Errors
// describe what went wrong for the operator and never carry the API key,
// even when the endpoint echoes it back.
func (l *llmAgent) complete(ctx context.Context, prompt string) (string, error) {
	select {
	case l.slots <- struct{}{}:
		defer func() { <-l.slots }()
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return "", err // canceled as the slot came free: no call for it
	}
	reply, err := l.post(ctx, prompt)
	if err != nil {
		msg := l.redact.String(err.Error())
		if l.apiKey != "" {
			msg = strings.ReplaceAll(msg, l.apiKey, "[redacted]")
		}
		err = errors.New(msg)
	}
	return reply, err
}

func (l *llmAgent) post(ctx context.Context, prompt string) (string, error) {
	body := chatRequest{Model: l.model}
	if l.systemPrompt != "" {
		body.Messages = append(body.Messages, chatMessage{Role: "system", Content: l.systemPrompt})
	}
	body.Messages = append(body.Messages, chatMessage{Role: "user", Content: prompt})
	payload, err := json.Marshal(body)
	if err != nil {
		return "", fmt.Errorf("encode chat completion request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.endpoint, bytes.NewReader(payload))
	if err != nil {
		return "", fmt.Errorf("build chat completion request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if l.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+l.apiKey)
	}
	resp, err := l.client.Do(req)
	if err != nil {
		// The URL is named here in full, not as net/http's error quotes
		// it (password masked, the rest left), so that a URL expanded
		// from a variable is replaced whole by the variable's name.
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		return "", fmt.Errorf("the model endpoint %s could not be reached: %w", l.endpoint, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxCompletionBytes))
	if err != nil {
		return "", fmt.Errorf("read the model endpoint's answer: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("the model endpoint %s answered %s: %s", l.endpoint, resp.Status, errorDetail(raw, l.apiKey))
	}
	var parsed chatResponse
	if err := json.Unmarshal(raw, &parsed); err != nil {
		return "", fmt.Errorf("the model endpoint %s answered with something other than a chat completion: %w", l.endpoint, err)
	}
	if len(parsed.Choices) == 0 {
		return "", fmt.Errorf("the model endpoint %s answered with no choices", l.endpoint)
	}
	return parsed.Choices[0].Message.Content, nil
}

// errorDetail extracts the message of an OpenAI-style error body, or a
// bounded prefix of whatever the endpoint sent. The secret is removed before
// the text is cut, so no fragment of it survives.
func errorDetail(raw []byte, secret string) string {
	var e chatError
	detail := strings.TrimSpace(string(raw))
	if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
		detail = e.Error.Message
	}
	if secret != "" {
		detail = strings.ReplaceAll(detail, secret, "[redacted]")
	}
	if len(detail) > maxErrorDetail {
		detail = strings.ToValidUTF8(detail[:maxErrorDetail], "") + "…"
	}
	if detail == "" {
		return "(no body)"
	}
	return detail
}
