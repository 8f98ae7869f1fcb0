//go:build linux

package local

import (
	"fmt"
	"os"
	"testing"
)

func TestParseStat(t *testing.T) {
	tail := " 1 1 1 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 %s 1000 100"
	tests := []struct {
		name    string
		stat    string
		want    procIdentity
		wantErr bool
	}{
		{"plain", "42 (agent) S" + fmt.Sprintf(tail, "98765"), procIdentity{'S', 98765}, false},
		{"name with parentheses and spaces", "42 (a) b (c) Z" + fmt.Sprintf(tail, "7"), procIdentity{'Z', 7}, false},
		{"truncated", "42 (agent) S 1 1", procIdentity{}, true},
		{"no name", "42 agent S", procIdentity{}, true},
		{"start time not a number", "42 (agent) S" + fmt.Sprintf(tail, "x"), procIdentity{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat([]byte(tt.stat))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("parseStat = %+v, %v; want %+v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestReadProcSelf(t *testing.T) {
	id, err := readProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if id.startTime == 0 || !alive(os.Getpid(), id.startTime) {
		t.Errorf("this process reads %+v, not alive", id)
	}
	if alive(os.Getpid(), id.startTime+1) {
		t.Error("this process reads alive under another start time")
	}
}
