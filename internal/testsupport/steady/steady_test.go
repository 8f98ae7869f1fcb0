package steady

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestFlowCounts: a flow counts every call and each that failed, quotes
// the first errors.
func TestFlowCounts(t *testing.T) {
	f := Start(time.Millisecond, func(_ context.Context, i int) error {
		if i%3 == 1 {
			return errors.New("refused")
		}
		return nil
	})
	time.Sleep(50 * time.Millisecond)
	got := f.Stop()
	if got.Calls < 6 || got.Failed != (got.Calls+1)/3 || len(got.Errors) != min(got.Failed, keptErrors) {
		t.Errorf("flow of calls failing every third from the second = %+v", got)
	}
}
