package recording

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"contractkit/fixtures"
)

// redacted replaces a key wherever a recorded text holds one.
const redacted = "[REDACTED]"

// Summary says what a Write keeps: per account, the records written and
// those left out or changed, with why; and the exchanges not recorded (or
// not wholly), counted by reason. The proxy prints Lines.
type Summary struct {
	Exchanges int              `json:"exchanges"`
	Ignored   map[string]int   `json:"ignored"`
	Accounts  []AccountSummary `json:"accounts"`
}

// AccountSummary is one key's account: Dir is where Write puts its set,
// relative to the directory given ("." for the first key).
type AccountSummary struct {
	Dir           string   `json:"dir"`
	Datasets      int      `json:"datasets"`
	Files         int      `json:"files"`
	Models        int      `json:"models"`
	Conversations int      `json:"conversations"`
	Messages      int      `json:"messages"`
	Evaluations   int      `json:"evaluations"`
	Skipped       []string `json:"skipped"`
	Changed       []string `json:"changed"`
}

// Lines is the summary for a terminal: one line per account, then one per
// record left out or changed, then the exchanges not recorded by reason.
func (s Summary) Lines() []string {
	var out []string
	for _, a := range s.Accounts {
		out = append(out, fmt.Sprintf("recorded %s: %d datasets (%d files), %d models, %d conversations (%d messages), %d evaluations; %d left out, %d changed",
			a.Dir, a.Datasets, a.Files, a.Models, a.Conversations, a.Messages, a.Evaluations, len(a.Skipped), len(a.Changed)))
		for _, l := range a.Skipped {
			out = append(out, "  left out: "+l)
		}
		for _, l := range a.Changed {
			out = append(out, "  changed: "+l)
		}
	}
	for _, reason := range slices.Sorted(maps.Keys(s.Ignored)) {
		out = append(out, fmt.Sprintf("  %d exchanges not recorded (or not wholly): %s", s.Ignored[reason], reason))
	}
	return out
}

// accountDir is where an account's set goes: the first key's in the
// directory itself (so `mockserver --fixtures DIR` serves it to every key),
// each further key's in DIR/account-N, N the order in which keys first
// showed. No key, nor anything derived from one, names a directory.
func accountDir(n int) string {
	if n == 1 {
		return "."
	}
	return fmt.Sprintf("account-%d", n)
}

// sets builds every account's set; the caller holds r.mu.
func (r *Recorder) sets() ([]built, Summary) {
	old := make([]string, 0, 2*len(r.keys))
	for k := range r.keys {
		old = append(old, k, redacted)
	}
	rep := strings.NewReplacer(old...)
	redact := rep.Replace
	if len(old) == 0 {
		redact = func(s string) string { return s }
	}
	sum := Summary{Exchanges: r.seen, Ignored: maps.Clone(r.ignored)}
	accounts := r.order
	if len(accounts) == 0 {
		accounts = []*account{newAccount(1)} // an empty set still loads
	}
	var out []built
	for _, a := range accounts {
		b := build(a, redact)
		as := AccountSummary{
			Dir: accountDir(a.n), Datasets: len(b.set.Datasets), Files: len(b.files), Models: len(b.set.Models),
			Conversations: len(b.set.Conversations), Evaluations: len(b.set.Evaluations),
			Skipped: b.skipped, Changed: b.changed,
		}
		for _, c := range b.set.Conversations {
			as.Messages += len(c.Messages)
		}
		sum.Accounts = append(sum.Accounts, as)
		out = append(out, b)
	}
	return out, sum
}

// Summary says what Write would keep now, without writing.
func (r *Recorder) Summary() Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, s := r.sets()
	return s
}

// Write writes the recording as fixture sets: dir/set.json and dir/files/
// for the first key's account, dir/account-N/ for each further key's, each
// loadable by `mockserver --fixtures`. Files get generated names (the
// uploaded names are kept only as file_names); set.json and those files are
// replaced, nothing else in dir is touched. Every set is loaded back with
// fixtures.Load before Write returns. A record left out is no error: see
// Summary.
func (r *Recorder) Write(dir string) error {
	r.mu.Lock()
	sets, sum := r.sets()
	r.mu.Unlock()
	for i, b := range sets {
		sub := filepath.Join(dir, sum.Accounts[i].Dir)
		if err := writeSet(sub, b); err != nil {
			return fmt.Errorf("recording: write %s: %w", sub, err)
		}
		if _, err := fixtures.Load(sub); err != nil {
			return fmt.Errorf("recording: the set written to %s does not load: %w", sub, err)
		}
	}
	return nil
}

func writeSet(dir string, b built) error {
	files := filepath.Join(dir, fixtures.FilesDir)
	if err := os.MkdirAll(files, 0o755); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(b.files)) {
		// name is generated (build.go: "d<id>-<n>.<ext>"), never user input.
		if err := os.WriteFile(filepath.Join(files, name), b.files[name], 0o644); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(b.set, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, fixtures.SetFile), append(data, '\n'), 0o644)
}
