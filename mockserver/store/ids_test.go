package store

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"contractkit/fixtures"
	"contractkit/mockserver/retrieval"
)

// fixtureIDs lists every id an account shows, in a fixed order.
func fixtureIDs(a *Account) (ints []int64, uuids []string) {
	d := a.Dump()
	for _, v := range d.Datasets {
		ints = append(ints, v.ID)
	}
	for _, v := range d.Models {
		ints = append(ints, v.ID)
	}
	for _, v := range d.Evaluations {
		ints = append(ints, v.ID)
	}
	for _, c := range d.Conversations {
		uuids = append(uuids, c.ID)
		for _, m := range c.Messages {
			uuids = append(uuids, m.ID)
		}
	}
	slices.Sort(uuids)
	return ints, uuids
}

func preloaded(t *testing.T, s *Store, name string) *Account {
	t.Helper()
	a := s.Account(name)
	if err := a.Preload(fixtures.Default()); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestFixtureIDsSurviveReset: a reset gives the fixtures the ids they had,
// and the first resource created after it the id after the fixtures'.
func TestFixtureIDsSurviveReset(t *testing.T) {
	s, _ := newStore(0, time.Second)
	a := preloaded(t, s, "account-1")
	preloaded(t, s, "account-2") // another account's activity must not shift account-1's ids
	ints, uuids := fixtureIDs(a)
	want := make([]int64, len(ints))
	for i := range want {
		want[i] = int64(i + 1)
	}
	if !slices.Equal(ints, want) {
		t.Errorf("the first account's fixture ids got %v, want %v (datasets, models, evaluations in set order)", ints, want)
	}
	if _, err := a.CreateDataset(DatasetInput{Name: "before reset", URLs: []string{"https://a.example"}}); err != nil {
		t.Fatal(err)
	}

	a = s.Reset("account-1")
	if err := a.Preload(fixtures.Default()); err != nil {
		t.Fatal(err)
	}
	gotInts, gotUUIDs := fixtureIDs(a)
	if !slices.Equal(gotInts, ints) {
		t.Errorf("after reset the fixture ids got %v, want %v as before", gotInts, ints)
	}
	if !slices.Equal(gotUUIDs, uuids) {
		t.Errorf("after reset the conversation and message ids got %v, want %v as before", gotUUIDs, uuids)
	}
	v, err := a.CreateDataset(DatasetInput{Name: "after reset", URLs: []string{"https://a.example"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := slices.Max(ints) + 1; v.ID != want {
		t.Errorf("a dataset created after reset got id %d, want %d (the next after the fixtures)", v.ID, want)
	}
}

// TestSameCallsSameData: two stores with the same seed and clock, given the
// same calls, show the same ids and data; another seed other UUIDs.
func TestSameCallsSameData(t *testing.T) {
	run := func(seed int64) string {
		s, _ := newStore(5*time.Second, 10*time.Second)
		s.cfg.Seed = seed
		a := preloaded(t, s, "account-1")
		d, err := a.CreateDataset(DatasetInput{Name: "d", Upload: Upload{Docs: []retrieval.Doc{doc(t, "a.txt", "The depot opens at 6 am. Deliveries arrive before noon every weekday.")}}})
		if err != nil {
			t.Fatal(err)
		}
		m, err := a.CreateModel(ModelInput{Name: "m", DatasetID: idString(d.ID)})
		if err != nil {
			t.Fatal(err)
		}
		c, err := a.CreateConversation(m.ID, "t")
		if err != nil {
			t.Fatal(err)
		}
		r, err := a.Ask(Question{Query: "When does the depot open?", ModelID: m.ID, ConversationID: c.ID})
		if err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal([]any{a.Dump(), r.ThreadID, r.Text})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	first, second := run(3), run(3)
	if first != second {
		t.Errorf("the same calls with the same seed gave different data:\n%s\n%s", first, second)
	}
	if other := run(4); other == first {
		t.Error("another seed gave the same conversation ids")
	}
}
