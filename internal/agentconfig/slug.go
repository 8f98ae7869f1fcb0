package agentconfig

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// MaxIDLength keeps ids usable as container names, file names and DNS
// labels.
const MaxIDLength = 63

// explicitID is the shape of an [agent] id the operator writes: a DNS
// label of lower-case letters, digits and single hyphens that starts with a
// letter. Single hyphens, because every part of the runtime recognises an
// id as a string that is its own slug, which never holds two in a row.
var explicitID = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// Slug turns an agent name into its id: lower-case letters, digits and
// single hyphens, so "Echo Agent (EU)" becomes "echo-agent-eu" and
// "Café Agent" becomes "cafe-agent". A string is a valid id exactly when it
// is its own slug, which is how the runtime recognises one. The result is
// cut to MaxIDLength; a config whose name's slug is longer is refused (see
// IDOfName), so a cut slug never becomes an agent id.
func Slug(name string) string {
	id, _ := slug(name)
	if len(id) > MaxIDLength {
		id = strings.TrimRight(id[:MaxIDLength], "-")
	}
	return id
}

// fold rewrites a name into the letters it is spelled with: accents
// dropped by decomposing each letter (NFD) and removing the marks ("é" →
// "e"), then case folded, which also spells out "ß" as "ss" and "ﬁ" as "fi".
// Symbols such as "™" are left alone, so they separate words as any
// punctuation does. Letters of other scripts pass through unchanged, and
// slug reports them as lost.
func fold(name string) string {
	if isASCII(name) {
		// Nothing to decompose, and ASCII folds to its lower case: the
		// transformers give the same at many times the cost, and a slug is
		// taken of every agent id the runtime reads back.
		return strings.ToLower(name)
	}
	return foldUnicode(name)
}

// foldUnicode is fold of any name.
func foldUnicode(name string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), cases.Fold())
	folded, _, err := transform.String(t, name)
	if err != nil {
		// The transformers accept any input, invalid UTF-8 included; keep
		// the name as written should that ever change.
		return strings.ToLower(name)
	}
	return folded
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// slug returns the uncut slug of name and the letters and digits it could
// not hold (those of scripts without an a-z spelling).
func slug(name string) (string, []rune) {
	var b strings.Builder
	var lost []rune
	hyphen := false
	for _, r := range fold(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
		default:
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				lost = append(lost, r)
			}
			hyphen = true
		}
	}
	return b.String(), lost
}

// LostLetters returns the letters and digits of name that its slug drops,
// as a string ("" when none): those of scripts with no a-z spelling, such
// as "日本" in "Agent 日本".
func LostLetters(name string) string {
	_, lost := slug(name)
	return string(lost)
}

// ID returns the agent id: [agent] id when the config sets it, else the
// slug of the agent name.
func (c *Config) ID() string {
	if c.Agent.ID != "" {
		return c.Agent.ID
	}
	return Slug(c.Agent.Name)
}

// validateID checks that the config yields a usable agent id: a valid
// [agent] id, or else a name whose slug is neither empty nor too long.
func (c *Config) validateID(add func(key, msg string)) {
	if c.Agent.ID != "" {
		if err := checkID(c.Agent.ID); err != nil {
			add("agent.id", "agent.id "+err.Error())
		}
		return
	}
	if checkName(c.Agent.Name) != nil {
		return // reported as a problem of agent.name itself
	}
	if _, err := IDOfName(c.Agent.Name); err != nil {
		add("agent.name", err.Error())
	}
}

// checkName reports a name no config may have, whatever its id.
func checkName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("agent.name is required")
	case HasReference(name):
		return errors.New("agent.name must be literal: it names the agent id, which must be known before the agent starts")
	}
	return nil
}

// IDOfName returns the id an agent named name gets when its config sets no
// [agent] id, or an error about agent.name saying why the name gives none.
//
// A name whose slug is longer than MaxIDLength is refused rather than cut
// (or cut and given a hash): two long names that share their first 63
// characters would otherwise get one id and collide at apply, and a hashed
// id would be one no reader can tell from the name. [agent] id says in
// plain words which id the agent gets.
func IDOfName(name string) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	id, _ := slug(name)
	switch {
	case id == "":
		return "", fmt.Errorf("agent.name %q has no letters or digits that can spell an agent id (a-z and 0-9, "+
			"once accents are dropped): set the id in [agent], such as id = \"my-agent\"", name)
	case len(id) > MaxIDLength:
		msg := fmt.Sprintf("agent.name %q gives an agent id of %d characters, more than the %d an id may have: set a "+
			"shorter id in [agent]", name, len(id), MaxIDLength)
		if cut := Slug(name); checkID(cut) == nil {
			msg += fmt.Sprintf(", such as id = %q", cut)
		}
		return "", errors.New(msg)
	}
	return id, nil
}

// checkID reports an explicit agent id that is not a DNS label of 1 to 63
// lower-case letters, digits and single hyphens starting with a letter. The
// error reads after the word naming the id's key.
func checkID(id string) error {
	if len(id) <= MaxIDLength && explicitID.MatchString(id) {
		return nil
	}
	msg := fmt.Sprintf("%q is not a valid agent id: use 1 to %d lower-case letters (a-z), digits and single hyphens, "+
		"starting with a letter and not ending with a hyphen", id, MaxIDLength)
	if s := Slug(id); s != id && explicitID.MatchString(s) {
		msg += fmt.Sprintf(", such as %q", s)
	}
	return fmt.Errorf("%s", msg)
}
