package store

import (
	"encoding/json"
	"time"
)

// Log receives a record of every change to the store, in the order of the
// changes, so that a crash loses none that was answered: the server writes
// the records to disk (package wal) and waits for them before it answers.
// Append is called with the changed account's lock held: it must not block
// on I/O. Its result is the record's sequence number.
type Log interface {
	Append(record []byte) uint64
}

// SetLog makes the store record every later change in l. Call it before
// the store is shared (the server does, once the state file is loaded).
func (s *Store) SetLog(l Log) { s.log = l }

// change is one state log record: the account's counters after the change
// and what changed, each part optional. A record holds the state of what it
// touches, not the request that touched it, so that replay needs neither
// the clock nor the generator: the answers after a restart are those before
// it. The parts' types are the snapshot's.
type change struct {
	Account       string `json:"account"`
	LastID        int64  `json:"last_id"`
	LastSeq       int64  `json:"last_conversation_seq"`
	UUIDs         uint64 `json:"uuids_issued"`
	ClockOffsetNS int64  `json:"clock_offset_ns"`

	// Whole replaces the account (created, reset).
	Whole *accountSnap `json:"whole,omitempty"`
	// Dataset is a dataset created (with its files) or whose fields
	// changed (files left out: Files appends them).
	Dataset *datasetSnap `json:"dataset,omitempty"`
	// Files are files added to a dataset.
	Files *filesAdded `json:"files,omitempty"`
	// Model is a model created.
	Model *modelSnap `json:"model,omitempty"`
	// Conversation is a conversation created or renamed (its messages are
	// kept as they are: Messages adds them).
	Conversation *conversationSnap `json:"conversation,omitempty"`
	// Messages are messages added to a conversation.
	Messages *messagesAdded `json:"messages,omitempty"`
	// Evaluation is an evaluation created or changed, its run's end
	// included (a run's results depend on the data at its end, which may
	// change later, so the end is recorded rather than recomputed).
	Evaluation *evaluationSnap `json:"evaluation,omitempty"`
	// Removed are the resources deleted (a model with its conversations).
	Removed *removed `json:"removed,omitempty"`
}

// filesAdded appends files to a dataset that had From files before, with
// the dataset's times after the upload.
type filesAdded struct {
	Dataset    int64      `json:"dataset"`
	From       int        `json:"from"`
	Files      []fileSnap `json:"files"`
	UploadedAt time.Time  `json:"uploaded_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
}

// messagesAdded inserts messages into a conversation at position At of its
// saved messages (an answer that finished streaming after later questions
// were asked goes before them, where it was asked).
type messagesAdded struct {
	Conversation string        `json:"conversation"`
	At           int           `json:"at"`
	Messages     []messageSnap `json:"messages"`
	UpdatedAt    time.Time     `json:"updated_at"`
}

type removed struct {
	Datasets      []int64  `json:"datasets,omitempty"`
	Models        []int64  `json:"models,omitempty"`
	Conversations []string `json:"conversations,omitempty"`
	Evaluations   []int64  `json:"evaluations,omitempty"`
}

// recording reports whether commit appends the account's changes to the
// state log, so a caller may skip building what only the log would read.
func (a *Account) recording() bool {
	return a.store.log != nil && !a.replaced && !a.transient
}

// commit records a change of the account: the store's version moves (the
// answers encoded ahead are stale) and, with a log, the change is
// appended. The caller holds a.mu and has made the change. An account that
// was reset meanwhile is no longer the store's: its changes are not kept;
// nor are those of an account opened on demand (Open), which no state file
// holds.
func (a *Account) commit(c change) {
	a.store.touch()
	if !a.recording() {
		return
	}
	l := a.store.log
	c.Account, c.LastID, c.LastSeq, c.UUIDs = a.name, a.lastID, a.lastSeq, a.uuids
	c.ClockOffsetNS = int64(a.clock.Offset())
	b, err := json.Marshal(c)
	if err != nil {
		panic("store: a state log record does not encode: " + err.Error()) // plain data: cannot happen
	}
	a.logSeq = l.Append(b)
}
