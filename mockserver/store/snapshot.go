package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"contractkit/mockserver/lifecycle"
	"contractkit/mockserver/retrieval"
)

// SnapshotVersion is the version of the snapshot format Snapshot writes; it
// is the only one Restore reads. Change it with any change to the types
// below that an older build would misread.
const SnapshotVersion = 1

// The snapshot types mirror the store's own types field by field. They are
// separate so that the file format is stated in one place, and a field
// added to the store does not silently change (or escape) the file.

type snapshot struct {
	Version  int           `json:"version"`
	Accounts []accountSnap `json:"accounts"`
}

// accountSnap is one account, named as the store names it: the server's
// account name, never the API key.
type accountSnap struct {
	Name          string             `json:"name"`
	IDBlock       int64              `json:"id_block"`
	LastID        int64              `json:"last_id"`
	LastSeq       int64              `json:"last_conversation_seq"`
	UUIDs         uint64             `json:"uuids_issued"`
	ClockOffsetNS int64              `json:"clock_offset_ns"`
	Datasets      []datasetSnap      `json:"datasets"`
	Models        []modelSnap        `json:"models"`
	Conversations []conversationSnap `json:"conversations"`
	Evaluations   []evaluationSnap   `json:"evaluations"`
}

type datasetSnap struct {
	ID          int64      `json:"id"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Tags        []string   `json:"tags"`
	URLs        []string   `json:"urls"`
	Files       []fileSnap `json:"files"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	UploadedAt  time.Time  `json:"uploaded_at"`
	Deleted     bool       `json:"deleted"`
}

// fileSnap is one file with its extracted text, from which the index and
// the evaluation samples are rebuilt: answers after a restart are the
// answers before it.
type fileSnap struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
	Type string `json:"type"`
	Rows int64  `json:"rows"`
	Text string `json:"text"`
}

type modelSnap struct {
	ID             int64     `json:"id"`
	Name           string    `json:"name"`
	Description    *string   `json:"description"`
	DatasetID      int64     `json:"dataset_id"`
	BaseModelID    *int64    `json:"base_model_id"`
	TrainingTypeID *string   `json:"training_type_id"`
	UseCaseID      *int64    `json:"use_case_id"`
	PersonaID      *int64    `json:"persona_id"`
	Category       string    `json:"category"`
	BaseModelName  string    `json:"base_model_name"`
	FineTune       string    `json:"fine_tune"`
	CreatedAt      time.Time `json:"created_at"`
	// The training, from which its state is derived on every read: a
	// training in flight when the server stopped goes on from where the
	// account's clock is after the restart.
	TrainingStart      time.Time `json:"training_start"`
	TrainingDurationNS int64     `json:"training_duration_ns"`
	TrainingWillFail   bool      `json:"training_will_fail"`
}

type conversationSnap struct {
	ID        string        `json:"id"`
	Seq       int64         `json:"seq"`
	ModelID   int64         `json:"model_id"`
	Title     string        `json:"title"`
	CreatedAt time.Time     `json:"created_at"`
	UpdatedAt time.Time     `json:"updated_at"`
	Messages  []messageSnap `json:"messages"`
}

type messageSnap struct {
	ID        string    `json:"id"`
	Role      string    `json:"role"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
}

type evaluationSnap struct {
	ID            int64      `json:"id"`
	Name          string     `json:"name"`
	Type          string     `json:"type"`
	ModelID       int64      `json:"model_id"`
	ModelName     string     `json:"model_name"`
	QuestionCount int        `json:"question_count"`
	Description   string     `json:"description"`
	BenchmarkType string     `json:"benchmark_type"`
	Status        string     `json:"status"`
	RunStart      time.Time  `json:"run_start"`
	RunDurationNS int64      `json:"run_duration_ns"`
	RunWillFail   bool       `json:"run_will_fail"`
	Results       *Results   `json:"results"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
	StartedAt     *time.Time `json:"started_at"`
	CompletedAt   *time.Time `json:"completed_at"`
}

// Snapshot encodes every account but those Open made (soft-deleted datasets, extracted text,
// trainings, conversations, evaluations, id counters and clock offsets
// included) as versioned JSON that Restore reads back. Each account is
// copied under its own lock, so each is consistent; evaluations whose run
// has ended are finished first, so the file holds what clients have seen.
func (s *Store) Snapshot() ([]byte, error) {
	s.mu.RLock()
	accounts := make([]*Account, 0, len(s.accounts))
	for _, n := range sortedKeys(s.accounts) {
		if a := s.accounts[n]; !a.transient {
			accounts = append(accounts, a)
		}
	}
	s.mu.RUnlock()
	out := snapshot{Version: SnapshotVersion, Accounts: make([]accountSnap, 0, len(accounts))}
	for _, a := range accounts {
		out.Accounts = append(out.Accounts, a.snapshot())
	}
	return json.Marshal(out)
}

func (a *Account) snapshot() accountSnap {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := accountSnap{
		Name: a.name, IDBlock: a.block, LastID: a.lastID, LastSeq: a.lastSeq, UUIDs: a.uuids,
		ClockOffsetNS: int64(a.clock.Offset()),
		Datasets:      []datasetSnap{}, Models: []modelSnap{}, Conversations: []conversationSnap{}, Evaluations: []evaluationSnap{},
	}
	for _, id := range sortedKeys(a.datasets) {
		d := a.datasets[id]
		ds := datasetSnap{
			ID: d.id, Name: d.name, Description: d.description, Tags: nonNil(d.tags), URLs: nonNil(d.urls),
			Files: []fileSnap{}, CreatedAt: d.createdAt, UpdatedAt: d.updatedAt, UploadedAt: d.uploadedAt, Deleted: d.deleted,
		}
		for i, f := range d.files {
			ds.Files = append(ds.Files, fileSnap{Name: f.Name, Size: f.Size, Type: f.Type, Rows: f.Rows, Text: d.texts[i]})
		}
		out.Datasets = append(out.Datasets, ds)
	}
	for _, id := range sortedKeys(a.models) {
		m := a.models[id]
		out.Models = append(out.Models, modelSnap{
			ID: m.id, Name: m.name, Description: m.description, DatasetID: m.datasetID, BaseModelID: m.baseModelID,
			TrainingTypeID: m.trainingTypeID, UseCaseID: m.useCaseID, PersonaID: m.personaID, Category: m.category,
			BaseModelName: m.baseModelName, FineTune: m.fineTune, CreatedAt: m.createdAt,
			TrainingStart: m.training.CreatedAt, TrainingDurationNS: int64(m.training.Duration), TrainingWillFail: m.training.WillFail,
		})
	}
	for _, id := range sortedKeys(a.conversations) {
		c := a.conversations[id]
		cs := conversationSnap{
			ID: c.id, Seq: c.seq, ModelID: c.modelID, Title: c.title, CreatedAt: c.createdAt, UpdatedAt: c.updatedAt,
			Messages: make([]messageSnap, 0, len(c.messages)),
		}
		for _, m := range c.messages {
			if m.pending {
				continue // an answer still streaming: a restart ends its stream, so none
			}
			cs.Messages = append(cs.Messages, messageSnap{ID: m.id, Role: m.role, Content: m.content, CreatedAt: m.createdAt})
		}
		out.Conversations = append(out.Conversations, cs)
	}
	for _, id := range sortedKeys(a.evaluations) {
		e := a.evaluations[id]
		a.advance(e)
		out.Evaluations = append(out.Evaluations, evaluationSnap{
			ID: e.id, Name: e.name, Type: e.typ, ModelID: e.modelID, ModelName: e.modelName,
			QuestionCount: e.questionCount, Description: e.description, BenchmarkType: e.benchmarkType,
			Status: string(e.status), RunStart: e.run.StartedAt, RunDurationNS: int64(e.run.Duration), RunWillFail: e.run.WillFail,
			Results: e.results, CreatedAt: e.createdAt, UpdatedAt: e.updatedAt, StartedAt: e.startedAt, CompletedAt: e.completedAt,
		})
	}
	return out
}

// Restore fills an empty store from data written by Snapshot. It refuses,
// changing nothing, a store that already has accounts, data that is not a
// snapshot, a version other than SnapshotVersion, and data that contradicts
// itself (repeated names or ids, ids outside the account's block, unknown
// states); the error says where.
func (s *Store) Restore(data []byte) error {
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("not a state snapshot: %w", err)
	}
	if head.Version == nil {
		return errors.New("not a state snapshot: no version field")
	}
	if *head.Version != SnapshotVersion {
		return fmt.Errorf("snapshot version %d is not supported (this build reads version %d)", *head.Version, SnapshotVersion)
	}
	var snap snapshot
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&snap); err != nil {
		return fmt.Errorf("snapshot version %d: %w", SnapshotVersion, err)
	}
	accounts := map[string]*Account{}
	blocks := map[int64]string{}
	var next int64
	for i, as := range snap.Accounts {
		if as.Name == "" {
			return fmt.Errorf("account %d: no name", i+1)
		}
		if accounts[as.Name] != nil {
			return fmt.Errorf("account %q: listed twice", as.Name)
		}
		if other, ok := blocks[as.IDBlock]; ok || as.IDBlock < 0 || as.IDBlock > 1<<20 {
			return fmt.Errorf("account %q: id block %d is invalid or also used by %q", as.Name, as.IDBlock, other)
		}
		a, err := s.restoreAccount(as)
		if err != nil {
			return fmt.Errorf("account %q: %w", as.Name, err)
		}
		accounts[as.Name], blocks[as.IDBlock] = a, as.Name
		next = max(next, as.IDBlock+1)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.accounts) > 0 {
		return errors.New("restore: the store already has accounts")
	}
	s.accounts, s.blocks = accounts, next
	return nil
}

func (s *Store) restoreAccount(as accountSnap) (*Account, error) {
	a := s.newAccount(as.Name, as.IDBlock)
	low, high := as.IDBlock*idsPerAccount, (as.IDBlock+1)*idsPerAccount
	if as.LastID < low || as.LastID >= high {
		return nil, fmt.Errorf("last_id %d is outside the account's id block (%d, %d)", as.LastID, low, high)
	}
	if as.LastSeq < 0 || as.ClockOffsetNS < 0 {
		return nil, errors.New("last_conversation_seq and clock_offset_ns must not be negative")
	}
	a.lastID, a.lastSeq, a.uuids = as.LastID, as.LastSeq, as.UUIDs
	a.clock.Advance(time.Duration(as.ClockOffsetNS))
	// checkID accepts an id the account handed out and has not used yet.
	used := map[int64]bool{}
	checkID := func(kind string, id int64) error {
		if id <= low || id > as.LastID || used[id] {
			return fmt.Errorf("%s id %d is repeated or was never handed out (last_id %d)", kind, id, as.LastID)
		}
		used[id] = true
		return nil
	}
	for _, ds := range as.Datasets {
		if err := checkID("dataset", ds.ID); err != nil {
			return nil, err
		}
		d := &dataset{
			id: ds.ID, name: ds.Name, description: ds.Description, tags: ds.Tags, urls: ds.URLs,
			index: retrieval.NewIndex(), createdAt: ds.CreatedAt, deleted: ds.Deleted,
		}
		docs := make([]retrieval.Doc, 0, len(ds.Files))
		for _, f := range ds.Files {
			docs = append(docs, retrieval.Doc{Name: f.Name, Kind: f.Type, Size: f.Size, Rows: int(f.Rows), Text: f.Text})
		}
		d.add(docs, ds.UploadedAt)
		d.updatedAt = ds.UpdatedAt
		a.datasets[d.id] = d
	}
	for _, ms := range as.Models {
		if err := checkID("model", ms.ID); err != nil {
			return nil, err
		}
		a.models[ms.ID] = &model{
			id: ms.ID, name: ms.Name, description: ms.Description, datasetID: ms.DatasetID, baseModelID: ms.BaseModelID,
			trainingTypeID: ms.TrainingTypeID, useCaseID: ms.UseCaseID, personaID: ms.PersonaID, category: ms.Category,
			baseModelName: ms.BaseModelName, fineTune: ms.FineTune, createdAt: ms.CreatedAt,
			training: lifecycle.Training{CreatedAt: ms.TrainingStart, Duration: time.Duration(ms.TrainingDurationNS), WillFail: ms.TrainingWillFail},
		}
	}
	for _, cs := range as.Conversations {
		if cs.ID == "" || a.conversations[cs.ID] != nil {
			return nil, fmt.Errorf("conversation id %q is empty or repeated", cs.ID)
		}
		c := &conversation{id: cs.ID, seq: cs.Seq, modelID: cs.ModelID, title: cs.Title, createdAt: cs.CreatedAt, updatedAt: cs.UpdatedAt}
		for _, m := range cs.Messages {
			c.messages = append(c.messages, message{id: m.ID, role: m.Role, content: m.Content, createdAt: m.CreatedAt})
		}
		a.conversations[c.id] = c
	}
	for _, es := range as.Evaluations {
		if err := checkID("evaluation", es.ID); err != nil {
			return nil, err
		}
		st := lifecycle.State(es.Status)
		if !lifecycle.IsEvaluationState(st) {
			return nil, fmt.Errorf("evaluation %d: status %q: %w", es.ID, es.Status, lifecycle.ErrUnknownState)
		}
		a.evaluations[es.ID] = &evaluation{
			id: es.ID, name: es.Name, typ: es.Type, modelID: es.ModelID, modelName: es.ModelName,
			questionCount: es.QuestionCount, description: es.Description, benchmarkType: es.BenchmarkType, status: st,
			run:     lifecycle.EvalRun{StartedAt: es.RunStart, Duration: time.Duration(es.RunDurationNS), WillFail: es.RunWillFail},
			results: es.Results, createdAt: es.CreatedAt, updatedAt: es.UpdatedAt, startedAt: es.StartedAt, completedAt: es.CompletedAt,
		}
	}
	return a, nil
}
