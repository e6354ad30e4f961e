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

// Restore fills an empty store from data written by Snapshot. It refuses,
// changing nothing, a store that already has accounts, data that is not a
// snapshot, a version it does not read, and data that contradicts itself
// (repeated names or ids, ids outside the account's block, unknown states);
// the error says where. It returns the largest state log sequence number
// the snapshot holds (0 for version 1).
func (s *Store) Restore(data []byte) (uint64, error) {
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return 0, fmt.Errorf("not a state snapshot: %w", err)
	}
	if head.Version == nil {
		return 0, errors.New("not a state snapshot: no version field")
	}
	if v := *head.Version; v != SnapshotVersion && v != 1 {
		return 0, fmt.Errorf("snapshot version %d is not supported (this build reads versions 1 and %d)", v, SnapshotVersion)
	}
	var snap snapshot
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&snap); err != nil {
		return 0, fmt.Errorf("snapshot version %d: %w", *head.Version, err)
	}
	if snap.Version == 1 {
		for _, as := range snap.Accounts {
			if as.LogSeq != 0 {
				return 0, fmt.Errorf("account %q: log_seq in a version 1 snapshot", as.Name)
			}
		}
	}
	accounts := map[string]*Account{}
	blocks := map[int64]string{}
	var next int64
	var seq uint64
	for i, as := range snap.Accounts {
		if as.Name == "" {
			return 0, fmt.Errorf("account %d: no name", i+1)
		}
		if accounts[as.Name] != nil {
			return 0, fmt.Errorf("account %q: listed twice", as.Name)
		}
		if other, ok := blocks[as.IDBlock]; ok || !validBlock(as.IDBlock) {
			return 0, fmt.Errorf("account %q: id block %d is invalid or also used by %q", as.Name, as.IDBlock, other)
		}
		a, err := s.restoreAccount(as)
		if err != nil {
			return 0, fmt.Errorf("account %q: %w", as.Name, err)
		}
		accounts[as.Name], blocks[as.IDBlock] = a, as.Name
		next = max(next, as.IDBlock+1)
		seq = max(seq, as.LogSeq)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.accounts) > 0 {
		return 0, errors.New("restore: the store already has accounts")
	}
	s.accounts, s.blocks = accounts, next
	return seq, nil
}

// validBlock bounds an id block read from a file: a billion ids per block
// (idsPerAccount) times a million blocks stays within int64.
func validBlock(b int64) bool { return b >= 0 && b <= 1<<20 }

func (s *Store) restoreAccount(as accountSnap) (*Account, error) {
	a := s.newAccount(as.Name, as.IDBlock)
	low, high := as.IDBlock*idsPerAccount, (as.IDBlock+1)*idsPerAccount
	if as.LastID < low || as.LastID >= high {
		return nil, fmt.Errorf("last_id %d is outside the account's id block (%d, %d)", as.LastID, low, high)
	}
	if as.LastSeq < 0 || as.ClockOffsetNS < 0 {
		return nil, errors.New("last_conversation_seq and clock_offset_ns must not be negative")
	}
	a.lastID, a.lastSeq, a.uuids, a.logSeq = as.LastID, as.LastSeq, as.UUIDs, as.LogSeq
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
		a.datasets[ds.ID] = ds.dataset()
	}
	for _, ms := range as.Models {
		if err := checkID("model", ms.ID); err != nil {
			return nil, err
		}
		a.models[ms.ID] = ms.model()
	}
	for _, cs := range as.Conversations {
		if cs.ID == "" || a.conversations[cs.ID] != nil {
			return nil, fmt.Errorf("conversation id %q is empty or repeated", cs.ID)
		}
		c := cs.conversation()
		c.messages = appendMessages(nil, cs.Messages)
		a.conversations[c.id] = c
	}
	for _, es := range as.Evaluations {
		if err := checkID("evaluation", es.ID); err != nil {
			return nil, err
		}
		e, err := es.evaluation()
		if err != nil {
			return nil, err
		}
		a.evaluations[es.ID] = e
	}
	return a, nil
}

func (ds datasetSnap) dataset() *dataset {
	d := &dataset{
		id: ds.ID, name: ds.Name, description: ds.Description, tags: ds.Tags, urls: ds.URLs,
		index: retrieval.NewIndex(), createdAt: ds.CreatedAt, deleted: ds.Deleted,
	}
	d.addFiles(ds.Files, ds.UploadedAt, ds.UpdatedAt)
	return d
}

// addFiles adds files read back from a snapshot or a log record, with the
// times the dataset had after they were added.
func (d *dataset) addFiles(files []fileSnap, uploadedAt, updatedAt time.Time) {
	docs := make([]retrieval.Doc, 0, len(files))
	for _, f := range files {
		docs = append(docs, retrieval.Doc{Name: f.Name, Kind: f.Type, Size: f.Size, Rows: int(f.Rows), Text: f.Text})
	}
	d.add(docs, uploadedAt)
	d.updatedAt = updatedAt
}

func (ms modelSnap) model() *model {
	return &model{
		id: ms.ID, name: ms.Name, description: ms.Description, datasetID: ms.DatasetID, baseModelID: ms.BaseModelID,
		trainingTypeID: ms.TrainingTypeID, useCaseID: ms.UseCaseID, personaID: ms.PersonaID, category: ms.Category,
		baseModelName: ms.BaseModelName, fineTune: ms.FineTune, createdAt: ms.CreatedAt,
		training: lifecycle.Training{CreatedAt: ms.TrainingStart, Duration: time.Duration(ms.TrainingDurationNS), WillFail: ms.TrainingWillFail},
	}
}

// conversation is the conversation without its messages.
func (cs conversationSnap) conversation() *conversation {
	return &conversation{id: cs.ID, seq: cs.Seq, modelID: cs.ModelID, title: cs.Title, createdAt: cs.CreatedAt, updatedAt: cs.UpdatedAt}
}

func appendMessages(to []message, ms []messageSnap) []message {
	for _, m := range ms {
		to = append(to, message{id: m.ID, role: m.Role, content: m.Content, createdAt: m.CreatedAt})
	}
	return to
}

func (es evaluationSnap) evaluation() (*evaluation, error) {
	st := lifecycle.State(es.Status)
	if !lifecycle.IsEvaluationState(st) {
		return nil, fmt.Errorf("evaluation %d: status %q: %w", es.ID, es.Status, lifecycle.ErrUnknownState)
	}
	return &evaluation{
		id: es.ID, name: es.Name, typ: es.Type, modelID: es.ModelID, modelName: es.ModelName,
		questionCount: es.QuestionCount, description: es.Description, benchmarkType: es.BenchmarkType, status: st,
		run:     lifecycle.EvalRun{StartedAt: es.RunStart, Duration: time.Duration(es.RunDurationNS), WillFail: es.RunWillFail},
		results: es.Results, createdAt: es.CreatedAt, updatedAt: es.UpdatedAt, startedAt: es.StartedAt, completedAt: es.CompletedAt,
	}, nil
}
