package store

import (
	"encoding/json"
	"time"
)

// SnapshotVersion is the version of the snapshot format Snapshot writes.
// Change it with any change to the types below that an older build would
// misread. Restore reads it and version 1 (the same without log_seq: a
// snapshot from before the state log).
const SnapshotVersion = 2

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
	Name          string `json:"name"`
	IDBlock       int64  `json:"id_block"`
	LastID        int64  `json:"last_id"`
	LastSeq       int64  `json:"last_conversation_seq"`
	UUIDs         uint64 `json:"uuids_issued"`
	ClockOffsetNS int64  `json:"clock_offset_ns"`
	// LogSeq is the sequence number of the last state log record the
	// account holds: replay skips the account's records up to it.
	LogSeq        uint64             `json:"log_seq"`
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
	return a.snapshotLocked()
}

// snapshotLocked copies the account; the caller holds a.mu.
func (a *Account) snapshotLocked() accountSnap {
	out := accountSnap{
		Name: a.name, IDBlock: a.block,
		Datasets: []datasetSnap{}, Models: []modelSnap{}, Conversations: []conversationSnap{}, Evaluations: []evaluationSnap{},
	}
	for _, id := range sortedKeys(a.datasets) {
		out.Datasets = append(out.Datasets, a.datasets[id].snap(0))
	}
	for _, id := range sortedKeys(a.models) {
		out.Models = append(out.Models, a.models[id].snap())
	}
	for _, id := range sortedKeys(a.conversations) {
		c := a.conversations[id]
		cs := c.snap()
		cs.Messages = c.savedMessages(0)
		out.Conversations = append(out.Conversations, cs)
	}
	for _, id := range sortedKeys(a.evaluations) {
		e := a.evaluations[id]
		a.advance(e) // may log the run's end: the counters below come after
		out.Evaluations = append(out.Evaluations, e.snap())
	}
	out.LastID, out.LastSeq, out.UUIDs = a.lastID, a.lastSeq, a.uuids
	out.ClockOffsetNS, out.LogSeq = int64(a.clock.Offset()), a.logSeq
	return out
}

// snap copies the dataset with its files from the from-th on.
func (d *dataset) snap(from int) datasetSnap {
	ds := datasetSnap{
		ID: d.id, Name: d.name, Description: d.description, Tags: nonNil(d.tags), URLs: nonNil(d.urls),
		Files: []fileSnap{}, CreatedAt: d.createdAt, UpdatedAt: d.updatedAt, UploadedAt: d.uploadedAt, Deleted: d.deleted,
	}
	for i := from; i < len(d.files); i++ {
		f := d.files[i]
		ds.Files = append(ds.Files, fileSnap{Name: f.Name, Size: f.Size, Type: f.Type, Rows: f.Rows, Text: d.texts[i]})
	}
	return ds
}

func (m *model) snap() modelSnap {
	return modelSnap{
		ID: m.id, Name: m.name, Description: m.description, DatasetID: m.datasetID, BaseModelID: m.baseModelID,
		TrainingTypeID: m.trainingTypeID, UseCaseID: m.useCaseID, PersonaID: m.personaID, Category: m.category,
		BaseModelName: m.baseModelName, FineTune: m.fineTune, CreatedAt: m.createdAt,
		TrainingStart: m.training.CreatedAt, TrainingDurationNS: int64(m.training.Duration), TrainingWillFail: m.training.WillFail,
	}
}

// snap copies the conversation without its messages.
func (c *conversation) snap() conversationSnap {
	return conversationSnap{ID: c.id, Seq: c.seq, ModelID: c.modelID, Title: c.title, CreatedAt: c.createdAt, UpdatedAt: c.updatedAt}
}

// savedMessages copies the messages from the from-th on, leaving out the
// answers still streaming: a restart ends their stream, so none.
func (c *conversation) savedMessages(from int) []messageSnap {
	out := make([]messageSnap, 0, len(c.messages)-from)
	for _, m := range c.messages[from:] {
		if !m.pending {
			out = append(out, messageSnap{ID: m.id, Role: m.role, Content: m.content, CreatedAt: m.createdAt})
		}
	}
	return out
}

func (e *evaluation) snap() evaluationSnap {
	return evaluationSnap{
		ID: e.id, Name: e.name, Type: e.typ, ModelID: e.modelID, ModelName: e.modelName,
		QuestionCount: e.questionCount, Description: e.description, BenchmarkType: e.benchmarkType,
		Status: string(e.status), RunStart: e.run.StartedAt, RunDurationNS: int64(e.run.Duration), RunWillFail: e.run.WillFail,
		Results: e.results, CreatedAt: e.createdAt, UpdatedAt: e.updatedAt, StartedAt: e.startedAt, CompletedAt: e.completedAt,
	}
}
