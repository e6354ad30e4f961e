package drive

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"contractkit/judge"
)

// Sequence is one failure kept for later runs (the replay file, --replay):
// the seed that found it and how many calls of that seed's run led to it.
// A later run drives each kept seed for its calls first: the generator is
// deterministic given the seed and the server's answers, so the same
// sequence is sent again whatever the run's own seed.
//
// The file holds one JSON object per line (JSON Lines), appended to and
// never rewritten:
//
//	{"seed":7,"calls":312,"finding":"listMessages /data/1/content: …","class":"declared","steps":["#305 runInference [A] … → 200", …]}
//
// seed and calls are what a replay reads; finding, class and steps (the
// last calls before the finding, as the report shows them) are for the
// reader.
type Sequence struct {
	Seed    uint64   `json:"seed"`
	Calls   int      `json:"calls"`
	Finding string   `json:"finding"`
	Class   string   `json:"class"`
	Steps   []string `json:"steps,omitempty"`
}

// maxReplayLine bounds one line of the replay file, maxReplays the
// sequences a run replays (the newest ones): a file grown by many runs
// costs a run no more.
const (
	maxReplayLine = 256 << 10
	maxReplays    = 8
)

// ReadReplay reads the replay file at path: no file is no sequence. It
// returns the newest distinct seeds' sequences, at most maxReplays.
func ReadReplay(path string) ([]Sequence, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var all []Sequence
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxReplayLine)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var s Sequence
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if s.Calls <= 0 {
			return nil, fmt.Errorf("%s:%d: calls must be positive", path, n)
		}
		all = append(all, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// The newest line of each seed, newest first.
	var out []Sequence
	for i := len(all) - 1; i >= 0 && len(out) < maxReplays; i-- {
		if !slices.ContainsFunc(out, func(s Sequence) bool { return s.Seed == all[i].Seed }) {
			out = append(out, all[i])
		}
	}
	return out, nil
}

// AppendReplay appends seqs to the replay file at path, creating it.
func AppendReplay(path string, seqs []Sequence) error {
	if len(seqs) == 0 {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, s := range seqs {
		if err := enc.Encode(s); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// Sequences are the run's failures to keep: one per finding that counts
// (Declared always, Decided when strict), with the calls that led to it.
func (r *Run) Sequences(strict bool) []Sequence {
	var out []Sequence
	fs := r.Class(judge.Declared)
	if strict {
		fs = append(fs, r.Class(judge.Decided)...)
	}
	for _, f := range fs {
		s := Sequence{Seed: r.Seed, Calls: f.Step + 1, Finding: f.Finding.Operation + " " + f.Finding.String(), Class: f.Finding.Class.String()}
		if f.Replay > f.Step {
			s.Calls = f.Replay + 1
		}
		for i := max(0, f.Step-before); i <= f.Step; i++ {
			s.Steps = append(s.Steps, fmt.Sprintf("#%d %s", i, r.describe(i)))
		}
		out = append(out, s)
	}
	return out
}
