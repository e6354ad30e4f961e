package wal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// Replayed is what Replay read from one file.
type Replayed struct {
	// Records is how many records were handed to apply.
	Records int
	// Last is the last record's sequence number (after, when none).
	Last uint64
	// TornAt and TornBytes locate a torn last record that was dropped: the
	// bytes from TornAt to the end of the file (TornBytes 0: none).
	TornAt, TornBytes int64
}

// CorruptError is a record that cannot be read, or cannot be applied, with
// more records after it: not the trace of a crash mid-append but damage, so
// the start stops rather than guess.
type CorruptError struct {
	File   string
	Offset int64
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("state log %s: record at byte offset %d: %s", e.File, e.Offset, e.Reason)
}

// Replay reads the log at path and calls apply with each record, in order.
// Sequence numbers must grow, from above after (the last one of the file
// replayed before this one, or 0). A missing file is an empty log. The last record, when it is torn (no
// newline, a bad checksum, or garbage after the last good record, as a
// crash mid-append leaves), is dropped and reported in Replayed; Replay
// does not change the file. A bad record followed by a good one, sequence
// numbers that do not grow, or an error from apply is a *CorruptError
// naming the file and the record's byte offset.
func Replay(path string, after uint64, apply func(seq uint64, payload []byte) error) (Replayed, error) {
	out := Replayed{Last: after}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var off int64
	bad := int64(-1) // offset of the first unreadable line, while no good one follows
	badReason := ""
	for {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return out, fmt.Errorf("state log %s: %w", path, err)
		}
		at := off
		off += int64(len(line))
		seq, payload, reason := parseFrame(line, err == io.EOF)
		if reason != "" {
			if bad < 0 {
				bad, badReason = at, reason
			}
			continue
		}
		if bad >= 0 {
			return out, &CorruptError{File: path, Offset: bad, Reason: badReason + " (and records follow it: not a torn last record)"}
		}
		if seq <= out.Last {
			return out, &CorruptError{File: path, Offset: at, Reason: fmt.Sprintf("sequence number %d after %d", seq, out.Last)}
		}
		if err := apply(seq, payload); err != nil {
			return out, &CorruptError{File: path, Offset: at, Reason: err.Error()}
		}
		out.Records++
		out.Last = seq
	}
	if bad >= 0 {
		out.TornAt, out.TornBytes = bad, off-bad
	}
	return out, nil
}

// parseFrame reads one line; reason says why it is not a record. last says
// the line had no newline (the file ended).
func parseFrame(line []byte, last bool) (seq uint64, payload []byte, reason string) {
	if last {
		return 0, nil, "no newline at its end (cut short)"
	}
	line = line[:len(line)-1]
	sum, rest, ok := bytes.Cut(line, []byte{' '})
	if !ok || len(sum) != 8 {
		return 0, nil, "no checksum"
	}
	want, err := strconv.ParseUint(string(sum), 16, 32)
	if err != nil {
		return 0, nil, "no checksum"
	}
	if got := crc32.Checksum(rest, castagnoli); got != uint32(want) {
		return 0, nil, fmt.Sprintf("checksum %08x, want %08x", got, want)
	}
	num, payload, ok := bytes.Cut(rest, []byte{' '})
	if !ok {
		return 0, nil, "no sequence number"
	}
	seq, err = strconv.ParseUint(string(num), 10, 64)
	if err != nil || seq == 0 {
		return 0, nil, "no sequence number"
	}
	return seq, payload, ""
}
