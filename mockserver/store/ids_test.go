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

// TestFixtureExplicitIDs: records with an id get it (offset by the account's
// block), records without one get the ids after the largest, a reset gives
// them again, and what is created later follows the largest.
func TestFixtureExplicitIDs(t *testing.T) {
	b := fixtures.Default()
	b.Set.Datasets[0].ID = 40
	b.Set.Datasets[0].FileNames = make([]string, len(b.Set.Datasets[0].Files))
	for i := range b.Set.Datasets[0].FileNames {
		b.Set.Datasets[0].FileNames[i] = "shown name " + string(rune('a'+i)) + ".md"
	}
	b.Set.Models[1].ID = 7
	b.Set.Evaluations[0].ID = 300
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	s, _ := newStore(0, time.Second)
	for _, name := range []string{"account-1", "account-2"} {
		a := s.Account(name)
		if err := a.Preload(b); err != nil {
			t.Fatal(err)
		}
	}
	check := func(a *Account, base int64) {
		t.Helper()
		d := a.Dump()
		if got := d.Datasets[0].ID; got != base+40 {
			t.Errorf("dataset with id 40: got %d, want %d", got, base+40)
		}
		if got := d.Datasets[0].Files[0].Name; got != "shown name a.md" {
			t.Errorf("dataset file shown as %q, want the set's file_names entry", got)
		}
		if got := d.Datasets[1].ID; got != base+301 {
			t.Errorf("the first dataset without id: got %d, want %d (after the largest set id)", got, base+301)
		}
		var modelIDs []int64
		for _, m := range d.Models {
			modelIDs = append(modelIDs, m.ID)
		}
		if !slices.Contains(modelIDs, base+7) {
			t.Errorf("model ids %v lack %d", modelIDs, base+7)
		}
		var evalIDs []int64
		for _, e := range d.Evaluations {
			evalIDs = append(evalIDs, e.ID)
		}
		if !slices.Contains(evalIDs, base+300) {
			t.Errorf("evaluation ids %v lack %d", evalIDs, base+300)
		}
	}
	check(s.Account("account-1"), 0)
	check(s.Account("account-2"), idsPerAccount)
	a := s.Reset("account-1")
	if err := a.Preload(b); err != nil {
		t.Fatal(err)
	}
	check(a, 0)
	ints, _ := fixtureIDs(a)
	v, err := a.CreateDataset(DatasetInput{Name: "later", URLs: []string{"https://a.example"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := slices.Max(ints) + 1; v.ID != want {
		t.Errorf("a dataset created after the preload got id %d, want %d", v.ID, want)
	}
	if err := a.Preload(b); err == nil {
		t.Error("a second preload of the same ids into one account succeeded, want an error (ids already used)")
	}
}
