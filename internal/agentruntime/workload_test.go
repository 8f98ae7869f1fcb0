package agentruntime

import (
	"reflect"
	"testing"
)

func TestWorkloadOver(t *testing.T) {
	defaults := Workload{
		Labels: map[string]string{"env": "prod", "team": "platform"}, ServiceAccount: "agents", PriorityClass: "low",
		Tolerations:      []Toleration{{Key: "dedicated", Value: "agents"}},
		DisruptionBudget: &DisruptionBudget{MaxUnavailable: "1"}, Resources: Resources{CPURequest: "50m", MemoryLimit: "1Gi"},
	}
	tests := []struct {
		name string
		own  Workload
		want Workload
	}{
		{"nothing of its own", Workload{}, defaults},
		{"its own win", Workload{
			Labels: map[string]string{"team": "search"}, ServiceAccount: "search", Tolerations: []Toleration{},
			DisruptionBudget: &DisruptionBudget{MinAvailable: "2"}, Resources: Resources{CPURequest: "100m"},
		}, Workload{
			Labels: map[string]string{"env": "prod", "team": "search"}, ServiceAccount: "search", PriorityClass: "low",
			Tolerations:      []Toleration{},
			DisruptionBudget: &DisruptionBudget{MinAvailable: "2"}, Resources: Resources{CPURequest: "100m", MemoryLimit: "1Gi"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.own.Over(defaults); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Over = %+v, want %+v", got, tt.want)
			}
		})
	}
	if defaults.Labels["team"] != "platform" {
		t.Error("Over changed the defaults' map")
	}
}
