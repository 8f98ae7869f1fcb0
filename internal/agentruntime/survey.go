package agentruntime

import (
	"context"
	"errors"
)

// Survey is what a runtime holds: the agents List returns and, for each
// agent it holds but cannot read in full, why.
type Survey struct {
	// Agents are the agents List returns, sorted by id. One whose config
	// cannot be read comes without its config.
	Agents []Agent
	// Unreadable has an error naming each agent whose record cannot be used
	// (left out of Agents) or whose config cannot be read, sorted by id.
	Unreadable []*Error
}

// Surveyor is a Runtime that can name the agents it holds but cannot read,
// which its List passes over so that one damaged record stops no operation
// on the others.
type Surveyor interface {
	Survey(ctx context.Context) (Survey, error)
}

// SurveyOf surveys rt: with its Survey where it has one, else with its
// List, whose agents are all it can tell of.
func SurveyOf(ctx context.Context, rt Runtime) (Survey, error) {
	if s, ok := rt.(Surveyor); ok {
		return s.Survey(ctx)
	}
	agents, err := rt.List(ctx)
	return Survey{Agents: agents}, err
}

// AddUnreadable adds err, an adapter's error about one agent it cannot
// read, to the survey's unreadable agents.
func (s *Survey) AddUnreadable(err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = Wrap(KindDamaged, "list", "", err)
	}
	s.Unreadable = append(s.Unreadable, e)
}
