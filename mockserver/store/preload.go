package store

import (
	"fmt"
	"io/fs"
	"time"

	"contractkit/fixtures"
	"contractkit/mockserver/lifecycle"
	"contractkit/mockserver/retrieval"
)

// Preload fills the account from a fixture bundle through the same paths an
// API client would take (files are extracted and indexed, evaluations run
// through the state table), so preloaded data behaves like created data.
// Every record reads back in the state the set names, at once, and moves on
// the account's clock from there: models marked ready and evaluations marked
// completed or failed are placed in the past so they are finished now, a
// training model a tenth of the way into its training (the queue behind
// it, so its status is training, not pending), a running evaluation started
// now. A record with an id gets it (offset
// by the account's id block, fixtures.MaxID); the others get the ids after
// the largest one, in set order.
func (a *Account) Preload(b fixtures.Bundle) error {
	_, err := a.Load(b)
	return err
}

// Loaded is what Load made: the ids of the set's records, by key for
// datasets and models, in set order for conversations and evaluations.
type Loaded struct {
	Datasets      map[string]int64
	Models        map[string]int64
	Conversations []string
	Evaluations   []int64
}

// Load is Preload, saying which ids the records got.
func (a *Account) Load(b fixtures.Bundle) (Loaded, error) {
	var out Loaded
	if err := a.reserveFixtureIDs(b.Set); err != nil {
		return out, err
	}
	datasets := map[string]int64{}
	out.Datasets, out.Models = datasets, map[string]int64{}
	for _, fd := range b.Set.Datasets {
		in := DatasetInput{Name: fd.Name, Description: fd.Description, Tags: fd.Tags, URLs: fd.URLs}
		for i, name := range fd.Files {
			shown := name
			if fd.FileNames != nil {
				shown = fd.FileNames[i]
			}
			doc, err := extractFile(b.Files, name, shown, a.store.cfg.Limits)
			if err != nil {
				return out, fmt.Errorf("fixture dataset %q: file %q: %w", fd.Name, name, err)
			}
			in.Docs = append(in.Docs, doc)
		}
		v, err := a.createDataset(in, a.fixtureID(fd.ID))
		if err != nil {
			return out, fmt.Errorf("fixture dataset %q: %w", fd.Name, err)
		}
		datasets[fd.Key] = v.ID
	}

	a.mu.Lock()
	defer a.mu.Unlock()
	// One record of the whole account, whatever was added before an error.
	defer func() { a.commit(change{Whole: ptr(a.snapshotLocked())}) }()
	now := a.now()
	for _, fd := range b.Set.Datasets {
		if d := a.datasets[datasets[fd.Key]]; fd.Deleted && d != nil {
			d.deleted, d.updatedAt = true, now // as a DELETE would leave it (D-07)
		}
	}
	models := map[string]*model{}
	for _, fm := range b.Set.Models {
		d := a.datasets[datasets[fm.Dataset]]
		if d == nil {
			return out, fmt.Errorf("fixture model %q: unknown dataset %q", fm.Name, fm.Dataset)
		}
		tr := lifecycle.Training{CreatedAt: now, Duration: a.store.cfg.TrainDuration}
		switch fm.State {
		case fixtures.StateTraining:
			// lifecycle.TrainingPhase: queued for the first tenth.
			tr.CreatedAt = now.Add(-tr.Duration / 10)
		case fixtures.StateReady:
			tr.CreatedAt = now.Add(-tr.Duration - time.Minute)
		case fixtures.StateFailed:
			tr.CreatedAt, tr.WillFail = now.Add(-tr.Duration-time.Minute), true
		}
		m := &model{
			id: a.idOrNext(fm.ID), name: fm.Name, description: shownDescription(fm.Description), datasetID: d.id,
			category: fm.Category, baseModelName: fm.BaseModelName, fineTune: fm.FineTune,
			training: tr, createdAt: tr.CreatedAt,
		}
		a.models[m.id] = m
		models[fm.Key] = m
		out.Models[fm.Key] = m.id
	}
	for i, fc := range b.Set.Conversations {
		m := models[fc.Model]
		if m == nil {
			return out, fmt.Errorf("fixture conversation %q: unknown model %q", fc.Title, fc.Model)
		}
		// Older conversations first, a minute apart, so "newest first" has meaning.
		at := now.Add(-time.Duration(len(b.Set.Conversations)-i) * time.Minute)
		c := &conversation{id: a.newUUID(), seq: a.nextSeq(), modelID: m.id, title: fc.Title, createdAt: at, updatedAt: at}
		for j, msg := range fc.Messages {
			a.appendMessage(c, msg.Role, msg.Content, at.Add(time.Duration(j)*time.Second), false)
		}
		a.conversations[c.id] = c
		out.Conversations = append(out.Conversations, c.id)
	}
	for _, fe := range b.Set.Evaluations {
		m := models[fe.Model]
		if m == nil {
			return out, fmt.Errorf("fixture evaluation %q: unknown model %q", fe.Name, fe.Model)
		}
		e := &evaluation{
			id: a.idOrNext(fe.ID), name: fe.Name, typ: fe.Type, modelID: m.id, modelName: m.name,
			questionCount: fe.QuestionCount, description: fe.Description, benchmarkType: fe.BenchmarkType,
			status: lifecycle.EvalPending, createdAt: now.Add(-time.Hour), updatedAt: now.Add(-time.Hour),
		}
		a.evaluations[e.id] = e
		out.Evaluations = append(out.Evaluations, e.id)
		switch fe.Status {
		case fixtures.StatusPending:
			continue
		case fixtures.StatusRunning:
			if err := a.start(e, now, a.store.cfg.EvalDuration); err != nil {
				return out, err
			}
			continue
		}
		if err := a.start(e, now.Add(-30*time.Minute), time.Minute); err != nil {
			return out, err
		}
		e.run.WillFail = fe.Status == fixtures.StatusFailed
		a.advance(e)
	}
	return out, nil
}

// shownDescription is a fixture model's description as the API shows it: an
// empty one is null, as for a model created without one (seed §2.1 default),
// since the set format has no null.
func shownDescription(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// A set's ids must fit in an account's id block: the array length below is
// negative, and the build fails, if they do not.
var _ [idsPerAccount - fixtures.MaxID - 1]struct{}

// reserveFixtureIDs checks that the ids the set asks for, and its
// evaluations' names, are free in the account, and moves the account's last id past the largest, so the records
// without an id, and everything created later, get ids after it.
func (a *Account) reserveFixtureIDs(s fixtures.Set) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	var want []int64
	for _, d := range s.Datasets {
		want = append(want, d.ID)
	}
	for _, m := range s.Models {
		want = append(want, m.ID)
	}
	for _, e := range s.Evaluations {
		want = append(want, e.ID)
	}
	for _, e := range s.Evaluations {
		if a.nameTaken(e.Name, 0) {
			return fmt.Errorf("evaluation name %q is already used in the account", e.Name)
		}
	}
	for _, id := range want {
		if id == 0 {
			continue
		}
		if id < 0 || id > fixtures.MaxID {
			return fmt.Errorf("fixture id %d is not within 1..%d", id, fixtures.MaxID)
		}
		abs := a.fixtureID(id)
		if a.datasets[abs] != nil || a.models[abs] != nil || a.evaluations[abs] != nil {
			return fmt.Errorf("fixture id %d is already used in the account", id)
		}
		a.lastID = max(a.lastID, abs)
	}
	return nil
}

// fixtureID is the account's id for a set's id (0 stays 0: none asked).
func (a *Account) fixtureID(id int64) int64 {
	if id == 0 {
		return 0
	}
	return a.block*idsPerAccount + id
}

// idOrNext is the account's id for a set's id, or the next id when the set
// gives none; the caller holds a.mu.
func (a *Account) idOrNext(id int64) int64 {
	if id == 0 {
		return a.nextID()
	}
	return a.fixtureID(id)
}

// extractFile reads the fixture file at name and extracts it as the upload
// shown would be (the shown name selects the extraction, as an upload's does).
func extractFile(fsys fs.FS, name, shown string, lim retrieval.Limits) (retrieval.Doc, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return retrieval.Doc{}, err
	}
	defer f.Close()
	return retrieval.Extract(shown, f, lim)
}
