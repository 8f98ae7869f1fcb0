package agenthost

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentconfig"
	"github.com/a2a-terraform/terraform-provider-a2a/internal/card"
)

// skillScopes holds a message to the scopes its card declares for the
// skill it asks for. A2A messages do not name a skill, so a caller names
// it under the card's skill extension (card.SkillExtensionURI) in the
// message's metadata; a message naming none may use any skill, so its
// token must hold the scopes of at least one. Without it, a token lacking
// every skill's scopes would still be served, and the skills'
// requirements the card declares would hold for no call.
type skillScopes struct {
	a2asrv.PassthroughCallInterceptor
	skills []agentconfig.Skill
	scoped bool // whether a skill names scopes
}

func newSkillScopes(cfg *agentconfig.Config) skillScopes {
	return skillScopes{skills: cfg.Skills, scoped: cfg.HasSkillScopes()}
}

// skillMetadataField names where a message names its skill, as refusals
// say it.
var skillMetadataField = fmt.Sprintf("message.metadata[%q]", card.SkillExtensionURI)

func (s skillScopes) Before(ctx context.Context, _ *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	send, ok := req.Payload.(*a2a.SendMessageRequest)
	if !ok || send.Message == nil || !s.scoped {
		return ctx, nil, nil
	}
	who, _ := ctx.Value(callerKey{}).(authedCaller)
	named, present := send.Message.Metadata[card.SkillExtensionURI]
	if !present {
		return ctx, nil, s.checkAny(who.scopes)
	}
	id, isString := named.(string)
	if !isString {
		return ctx, nil, fmt.Errorf("%w: %s must be a skill's id, a string; it is %T", a2a.ErrInvalidParams, skillMetadataField, named)
	}
	i := slices.IndexFunc(s.skills, func(sk agentconfig.Skill) bool { return sk.ID == id })
	if i < 0 {
		return ctx, nil, fmt.Errorf("%w: %s names the skill %q, which this agent does not have; its skills are %s",
			a2a.ErrInvalidParams, skillMetadataField, id, strings.Join(s.ids(), ", "))
	}
	if missing := missingOf(s.skills[i].Scopes, who.scopes); len(missing) > 0 {
		return ctx, nil, fmt.Errorf("%w: the token lacks the scopes %s the skill %q requires", a2a.ErrUnauthorized, strings.Join(missing, ", "), id)
	}
	return ctx, nil, nil
}

// checkAny lets a message that names no skill through when the token holds
// the scopes of some skill (a skill naming none asks for nothing).
func (s skillScopes) checkAny(have []string) error {
	needs := make([]string, 0, len(s.skills))
	for _, sk := range s.skills {
		if len(missingOf(sk.Scopes, have)) == 0 {
			return nil
		}
		needs = append(needs, fmt.Sprintf("%s (%s)", sk.ID, strings.Join(sk.Scopes, " ")))
	}
	return fmt.Errorf("%w: the token holds the scopes of none of this agent's skills: %s; name the skill in %s and ask the identity provider for its scopes",
		a2a.ErrUnauthorized, strings.Join(needs, ", "), skillMetadataField)
}

func (s skillScopes) ids() []string {
	ids := make([]string, len(s.skills))
	for i, sk := range s.skills {
		ids[i] = sk.ID
	}
	return ids
}

// missingOf returns the scopes of required that have lacks.
func missingOf(required, have []string) []string {
	var missing []string
	for _, s := range required {
		if !slices.Contains(have, s) {
			missing = append(missing, s)
		}
	}
	return missing
}
