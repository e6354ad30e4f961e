package store

import (
	"fmt"
	"testing"
	"time"

	"contractkit/mockserver/apierr"
	"contractkit/mockserver/retrieval"
)

// TestModelJSONIsAlwaysTheFreshView: the encoding GET of a model answers,
// kept once the training has ended, equals a fresh encoding of the view at
// every step — while training, when it ends, after its dataset gains a file,
// after other writes, after its dataset is deleted — and a training model
// is never answered from the kept encoding.
func TestModelJSONIsAlwaysTheFreshView(t *testing.T) {
	s, clock := newStore(10*time.Second, time.Second)
	a := s.Account("account-1")
	other := s.Account("account-2")
	ds, err := a.CreateDataset(DatasetInput{Name: "Manuals <v1> & notes", Upload: Upload{Docs: []retrieval.Doc{manual(t)}}})
	if err != nil {
		t.Fatal(err)
	}
	dsID := fmt.Sprint(ds.ID)
	m, err := a.CreateModel(ModelInput{Name: "Support <bot> & co", DatasetID: dsID})
	if err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprint(m.ID)
	same := func(step string) string {
		t.Helper()
		got, err := a.ModelJSON(id)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		view, err := a.Model(id)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		want, err := apierr.Marshal(view)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("%s: ModelJSON\n%s\nwant the fresh view\n%s", step, got, want)
		}
		return string(got)
	}
	pending := same("just created")
	clock.Advance(6 * time.Second) // building the graph: progress moves with the clock
	building := same("building")
	if building == pending {
		t.Fatal("the view did not change while training: the test does not exercise the clock")
	}
	clock.Advance(time.Second)
	if same("building, a second later") == building {
		t.Fatal("graph_build_progress did not move: a training model was answered from a kept encoding")
	}
	clock.Advance(time.Minute)
	ready := same("ready")
	same("ready, asked again (kept)")
	if _, err := a.AddFiles(dsID, Upload{Docs: []retrieval.Doc{manual(t)}}); err != nil {
		t.Fatal(err)
	}
	grown := same("after a file was added to its dataset")
	if grown == ready {
		t.Fatal("dataset_info did not change after an upload")
	}
	if _, err := other.CreateDataset(DatasetInput{Name: "elsewhere", URLs: []string{"https://example.com/a"}}); err != nil {
		t.Fatal(err)
	}
	same("after a write to another account")
	if _, err := a.DeleteDataset(dsID, true); err != nil {
		t.Fatal(err)
	}
	if same("after its dataset was erased") == grown {
		t.Fatal("dataset_info did not change after the dataset was erased")
	}
	if _, err := a.ModelJSON("999999"); err == nil {
		t.Fatal("no error for a missing model")
	}
}

// manual is a small readable file for a dataset.
func manual(t *testing.T) retrieval.Doc {
	return doc(t, "manual.md", "# Warranty\n\nThe standard warranty lasts 24 months and covers parts and labour.\n")
}
