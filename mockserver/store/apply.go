package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Apply replays one state log record, whose sequence number is seq, onto a
// store restored from a snapshot (or an empty one), before the store is
// shared. A record the account already holds (the snapshot's log_seq is at
// or past seq) is skipped, so a snapshot taken while records were being
// appended loses none and applies none twice. A record that does not fit
// the state it meets (a file added to a dataset that does not exist, ids
// outside the account's block) is an error: the log and the snapshot do
// not belong together.
func (s *Store) Apply(seq uint64, record []byte) error {
	var c change
	dec := json.NewDecoder(bytes.NewReader(record))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return fmt.Errorf("not a state record: %w", err)
	}
	if c.Account == "" {
		return errors.New("a state record names no account")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accounts[c.Account]
	if a != nil && seq <= a.logSeq {
		return nil
	}
	if c.Whole != nil {
		return s.applyWhole(seq, c)
	}
	if a == nil {
		return fmt.Errorf("account %q: changed before it was created", c.Account)
	}
	if err := a.apply(c); err != nil {
		return fmt.Errorf("account %q: %w", c.Account, err)
	}
	a.logSeq = seq
	return nil
}

// applyWhole creates or replaces an account; the caller holds s.mu.
func (s *Store) applyWhole(seq uint64, c change) error {
	w := *c.Whole
	if w.Name != c.Account {
		return fmt.Errorf("account %q: the record holds account %q", c.Account, w.Name)
	}
	if !validBlock(w.IDBlock) {
		return fmt.Errorf("account %q: id block %d is invalid", w.Name, w.IDBlock)
	}
	for name, other := range s.accounts {
		if name != w.Name && other.block == w.IDBlock {
			return fmt.Errorf("account %q: id block %d is also %q's", w.Name, w.IDBlock, name)
		}
	}
	a, err := s.restoreAccount(w)
	if err != nil {
		return fmt.Errorf("account %q: %w", w.Name, err)
	}
	a.logSeq = seq
	s.accounts[w.Name] = a
	s.blocks = max(s.blocks, w.IDBlock+1)
	return nil
}

// apply makes one change's parts, then sets the counters and the clock it
// carries. Nothing else holds the account during replay.
func (a *Account) apply(c change) error {
	low, high := a.block*idsPerAccount, (a.block+1)*idsPerAccount
	if c.LastID < a.lastID || c.LastID >= high || c.LastSeq < a.lastSeq || c.UUIDs < a.uuids {
		return fmt.Errorf("counters (last_id %d, last_conversation_seq %d, uuids_issued %d) go back from (%d, %d, %d) or leave the id block (%d, %d)",
			c.LastID, c.LastSeq, c.UUIDs, a.lastID, a.lastSeq, a.uuids, low, high)
	}
	back := time.Duration(c.ClockOffsetNS) - a.clock.Offset()
	if back < 0 {
		return fmt.Errorf("clock_offset_ns %d goes back from %d", c.ClockOffsetNS, a.clock.Offset())
	}
	inBlock := func(kind string, id int64) error {
		if id <= low || id > c.LastID {
			return fmt.Errorf("%s id %d was never handed out (last_id %d)", kind, id, c.LastID)
		}
		return nil
	}
	if ds := c.Dataset; ds != nil {
		if err := inBlock("dataset", ds.ID); err != nil {
			return err
		}
		a.applyDataset(*ds)
	}
	if f := c.Files; f != nil {
		d := a.datasets[f.Dataset]
		if d == nil || len(d.files) != f.From {
			return fmt.Errorf("files added to dataset %d after file %d: no such dataset, or it has other files", f.Dataset, f.From)
		}
		d.addFiles(f.Files, f.UploadedAt, f.UpdatedAt)
	}
	if ms := c.Model; ms != nil {
		if err := inBlock("model", ms.ID); err != nil {
			return err
		}
		a.models[ms.ID] = ms.model()
	}
	if cs := c.Conversation; cs != nil {
		if cs.ID == "" {
			return errors.New("a conversation with no id")
		}
		if old := a.conversations[cs.ID]; old != nil {
			conv := cs.conversation()
			conv.messages = old.messages
			a.conversations[cs.ID] = conv
		} else {
			a.conversations[cs.ID] = cs.conversation()
		}
	}
	if m := c.Messages; m != nil {
		conv := a.conversations[m.Conversation]
		if conv == nil || m.At < 0 || m.At > len(conv.messages) {
			return fmt.Errorf("messages added to conversation %q at %d: no such conversation, or it has fewer messages", m.Conversation, m.At)
		}
		conv.messages = slices.Insert(conv.messages, m.At, appendMessages(nil, m.Messages)...)
		conv.updatedAt = m.UpdatedAt
	}
	if es := c.Evaluation; es != nil {
		if err := inBlock("evaluation", es.ID); err != nil {
			return err
		}
		e, err := es.evaluation()
		if err != nil {
			return err
		}
		a.evaluations[es.ID] = e
	}
	if r := c.Removed; r != nil {
		if err := a.applyRemoved(*r); err != nil {
			return err
		}
	}
	a.lastID, a.lastSeq, a.uuids = c.LastID, c.LastSeq, c.UUIDs
	a.clock.Advance(back)
	return nil
}

// applyDataset creates a dataset with its files, or changes the fields of
// one that exists (its files stay: a Files record adds them).
func (a *Account) applyDataset(ds datasetSnap) {
	d := a.datasets[ds.ID]
	if d == nil {
		a.datasets[ds.ID] = ds.dataset()
		return
	}
	d.name, d.description, d.tags, d.urls = ds.Name, ds.Description, ds.Tags, ds.URLs
	d.createdAt, d.updatedAt, d.uploadedAt, d.deleted = ds.CreatedAt, ds.UpdatedAt, ds.UploadedAt, ds.Deleted
}

func (a *Account) applyRemoved(r removed) error {
	for _, id := range r.Datasets {
		if a.datasets[id] == nil {
			return fmt.Errorf("dataset %d removed, but there is none", id)
		}
		delete(a.datasets, id)
	}
	for _, id := range r.Models {
		if a.models[id] == nil {
			return fmt.Errorf("model %d removed, but there is none", id)
		}
		delete(a.models, id)
	}
	for _, id := range r.Conversations {
		if a.conversations[id] == nil {
			return fmt.Errorf("conversation %q removed, but there is none", id)
		}
		delete(a.conversations, id)
	}
	for _, id := range r.Evaluations {
		if a.evaluations[id] == nil {
			return fmt.Errorf("evaluation %d removed, but there is none", id)
		}
		delete(a.evaluations, id)
	}
	return nil
}
