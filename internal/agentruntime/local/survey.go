//go:build linux

package local

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/a2a-terraform/terraform-provider-a2a/internal/agentruntime"
)

// Survey returns every agent, sorted by id, probing them in parallel, and
// names each one whose record is damaged (left out) or whose config file
// is (listed without its config).
func (r *Runtime) Survey(ctx context.Context) (agentruntime.Survey, error) {
	var s agentruntime.Survey
	recs, err := r.loadEach("list", r.load, func(err error) { s.AddUnreadable(err) })
	if err != nil {
		return agentruntime.Survey{}, err
	}
	s.Agents = make([]agentruntime.Agent, len(recs))
	configErrs := make([]error, len(recs))
	var wg sync.WaitGroup
	for i, rec := range recs {
		wg.Go(func() {
			raw, err := r.readConfig(rec)
			configErrs[i] = err
			s.Agents[i] = r.view(ctx, rec, raw)
		})
	}
	wg.Wait()
	for _, err := range configErrs {
		if err != nil {
			s.AddUnreadable(err)
		}
	}
	slices.SortStableFunc(s.Unreadable, func(a, b *agentruntime.Error) int { return strings.Compare(a.ID, b.ID) })
	return s, nil
}
