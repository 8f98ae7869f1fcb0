package agenthost

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"time"
)

// cardMaxAge is how long clients may cache the card. A card changes only
// when the agent is redeployed, which a platform does in minutes, not
// seconds; the ETag lets clients revalidate cheaply once it expires.
const cardMaxAge = 5 * time.Minute

// cardHandler serves the published card to any origin, with the caching
// headers the specification recommends (section 8.6.1): Cache-Control with
// max-age, and an ETag of the card's bytes so a conditional GET of an
// unchanged card is answered 304 Not Modified.
type cardHandler struct {
	raw      []byte
	etag     string
	modified time.Time
}

func newCardHandler(raw []byte, published time.Time) *cardHandler {
	sum := sha256.Sum256(raw)
	return &cardHandler{
		raw:      raw,
		etag:     `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`,
		modified: published,
	}
}

func (c *cardHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	allowAnyOrigin(w, r)
	switch r.Method {
	case http.MethodOptions:
		w.Header().Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type, If-None-Match, If-Modified-Since")
		w.Header().Set("Access-Control-Max-Age", "86400")
		w.WriteHeader(http.StatusOK)
	case http.MethodGet, http.MethodHead:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(int(cardMaxAge.Seconds())))
		w.Header().Set("ETag", c.etag)
		// ServeContent answers If-None-Match and If-Modified-Since with
		// 304, and HEAD without a body.
		http.ServeContent(w, r, "", c.modified, bytes.NewReader(c.raw))
	default:
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

// allowAnyOrigin lets browsers on any origin read the public card.
func allowAnyOrigin(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" {
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Add("Vary", "Origin")
		return
	}
	w.Header().Set("Access-Control-Allow-Origin", "*")
}
