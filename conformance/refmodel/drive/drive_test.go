package drive

import (
	"path/filepath"
	"testing"

	"contractkit/fixtures"
)

// Every upload the generator sends is an embedded fixture: a name that
// reads nothing would send an empty file where a readable one was meant.
func TestFileSetsAreFixtures(t *testing.T) {
	for _, set := range fileSets {
		for _, name := range set {
			if _, err := fixtures.ReadFile(name); err != nil {
				t.Errorf("file set names %s: %v", name, err)
			}
		}
	}
	if _, err := fixtures.ReadFile("employee-handbook.md"); err != nil {
		t.Error(err)
	}
}

// A replay file keeps the newest line of each seed, newest first, and
// refuses a line that says no call to replay.
func TestReplayFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "replay.jsonl")
	if seqs, err := ReadReplay(path); err != nil || seqs != nil {
		t.Fatalf("no file: %v %v", seqs, err)
	}
	if err := AppendReplay(path, []Sequence{{Seed: 3, Calls: 10}, {Seed: 4, Calls: 20}}); err != nil {
		t.Fatal(err)
	}
	if err := AppendReplay(path, []Sequence{{Seed: 3, Calls: 30, Finding: "f"}}); err != nil {
		t.Fatal(err)
	}
	seqs, err := ReadReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 2 || seqs[0].Seed != 3 || seqs[0].Calls != 30 || seqs[1].Seed != 4 {
		t.Fatalf("read %+v", seqs)
	}
	if err := AppendReplay(path, []Sequence{{Seed: 5}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadReplay(path); err == nil {
		t.Fatal("a line with no calls was read")
	}
}
