//go:build linux

package provider

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recordDamage damages the files of agent id in the local adapter's part
// of stateDir, one way each.
var recordDamage = map[string]func(t *testing.T, stateDir, id string){
	"record truncated": func(t *testing.T, stateDir, id string) {
		path := filepath.Join(stateDir, "local", "agents", id+".json")
		data := readFile(t, path)
		writeFile(t, path, string(data[:len(data)/2]))
	},
	"record invalid": func(t *testing.T, stateDir, id string) {
		writeFile(t, filepath.Join(stateDir, "local", "agents", id+".json"), "{\"id\": 42")
	},
	"config missing": func(t *testing.T, stateDir, id string) {
		removeFile(t, filepath.Join(stateDir, "local", "configs", id+".toml"))
	},
	"config edited": func(t *testing.T, stateDir, id string) {
		path := filepath.Join(stateDir, "local", "configs", id+".toml")
		writeFile(t, path, string(readFile(t, path))+"# edited by hand\n")
	},
	"process file missing": func(t *testing.T, stateDir, id string) {
		removeFile(t, filepath.Join(stateDir, "local", "agents", id+".process"))
	},
	"process file invalid": func(t *testing.T, stateDir, id string) {
		writeFile(t, filepath.Join(stateDir, "local", "agents", id+".process"), "\x00\x00")
	},
	"stray temporary files": func(t *testing.T, stateDir, id string) {
		for _, f := range []string{"agents/." + id + ".json.tmp-1", "agents/." + id + ".process.tmp-2", "configs/." + id + ".toml.tmp-3"} {
			writeFile(t, filepath.Join(stateDir, "local", f), "{")
		}
	},
}

// TestAccCrash_recordDamage damages one agent's record each way a crash or
// a hand can, then proves that it concerns that agent only: one apply
// mends it (the plan after is empty, every process tracked once) while the
// other agents keep running untouched; and that destroy removes a damaged
// agent, stopping its process.
func TestAccCrash_recordDamage(t *testing.T) {
	requireAcc(t)
	for kind, damage := range recordDamage {
		for _, then := range []string{"apply", "destroy"} {
			t.Run(kind+"/"+then, func(t *testing.T) {
				w := newCrashWorld(t, localAgents{})
				w.declare("first", crashAgents...)
				w.converge()
				before := w.stateAgents()
				damaged := w.agentID(crashAgents[0])
				damage(t, w.stateDir, damaged)
				if then == "destroy" {
					w.destroyed()
					return
				}
				out := strings.Join(strings.Fields(w.converge()), "")
				for file, named := range map[string]bool{damaged + ".json": strings.HasPrefix(kind, "record"), damaged + ".toml": strings.HasPrefix(kind, "config")} {
					if named && !strings.Contains(out, file) {
						t.Errorf("the apply that mends the damage does not name %s:\n%s", file, out)
					}
				}
				after := w.stateAgents()
				for id, instance := range before {
					if id != damaged && after[id] != instance {
						t.Errorf("agent %q was touched by mending %q: instance %q became %q", id, damaged, instance, after[id])
					}
				}
				w.destroyed()
			})
		}
	}
}

// TestAccCrash_damageSeenByARefresh: a refresh that saves its state
// (apply -refresh-only) records a damaged agent as needing to be
// provisioned again; every later plan, apply and destroy reads it so too,
// rather than failing on it.
func TestAccCrash_damageSeenByARefresh(t *testing.T) {
	requireAcc(t)
	for _, then := range []string{"apply", "destroy"} {
		t.Run(then, func(t *testing.T) {
			w := newCrashWorld(t, localAgents{})
			w.declare("first", crashAgents...)
			w.converge()
			recordDamage["record invalid"](t, w.stateDir, w.agentID(crashAgents[0]))
			w.mustSucceed("apply", "-refresh-only", "-auto-approve", "-input=false")
			w.mustSucceed("plan", "-input=false")
			if then == "apply" {
				w.converge()
			}
			w.destroyed()
		})
	}
}

// TestAccCrash_stateDirMoved moves the state dir away while its agents
// run. Pointed at the old path, the provider must not start duplicates
// there: it says which agents still run and how to adopt or stop them.
// Pointed at the new place, it manages them again with an empty plan.
func TestAccCrash_stateDirMoved(t *testing.T) {
	requireAcc(t)
	w := newCrashWorld(t, localAgents{})
	w.declare("first", crashAgents...)
	w.converge()
	running := w.processes()
	oldPath, newPath := w.stateDir, w.stateDir+"-moved"
	if err := os.Rename(oldPath, newPath); err != nil {
		t.Fatal(err)
	}
	w.stateDir = newPath // where the agents' state dir is now
	out, code := w.terraform(nil, "apply", "-auto-approve", "-input=false")
	if code == 0 {
		t.Fatalf("apply against the emptied old path succeeded:\n%s", out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"still runs", "set state_dir", "kill -TERM"} {
		if !strings.Contains(flat, want) {
			t.Errorf("apply against the old path does not say %q:\n%s", want, out)
		}
	}
	if now := w.processes(); !maps.EqualFunc(now, running, func(a, b []string) bool { return len(a) == 1 && len(b) == 1 && a[0] == b[0] }) {
		t.Errorf("the agents running changed from %v to %v: duplicates were started or originals stopped", running, now)
	}
	w.declare("first", crashAgents...)
	w.converge()
	w.destroyed()
	if err := os.RemoveAll(oldPath); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func removeFile(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}
