package mockserver

import (
	"encoding/binary"
	"strings"
)

// chunkLog keeps the chunks of an open stream for the journal, front-coded:
// each chunk is stored as the length of the prefix it shares with the chunk
// before it, then the rest. The events of a stream repeat their framing
// (`data: {"type":"token","content":"` is 33 of a token event's ~45 bytes),
// so an open stream holds about a dozen bytes a token instead of a string
// and its header; with thousands of streams open, that is most of what the
// journal costs them. The chunks come back whole, in order (strings).
type chunkLog struct {
	enc  []byte // per chunk: uvarint shared, uvarint len(rest), rest
	prev []byte // the last chunk, to find the next one's shared prefix
	size int    // bytes of all chunks
	n    int
}

func (l *chunkLog) add(p []byte) {
	shared := 0
	for shared < len(p) && shared < len(l.prev) && p[shared] == l.prev[shared] {
		shared++
	}
	l.enc = binary.AppendUvarint(l.enc, uint64(shared))
	l.enc = binary.AppendUvarint(l.enc, uint64(len(p)-shared))
	l.enc = append(l.enc, p[shared:]...)
	l.prev = append(l.prev[:0], p...)
	l.size += len(p)
	l.n++
}

// strings returns the chunks, sharing one allocation of their bytes; nil
// when there are none.
func (l *chunkLog) strings() []string {
	if l.n == 0 {
		return nil
	}
	var all strings.Builder
	all.Grow(l.size) // all the bytes fit: the builder never moves them, so the strings sliced from it stay valid
	out := make([]string, 0, l.n)
	prev := ""
	for rest := l.enc; len(rest) > 0; {
		shared, k := binary.Uvarint(rest)
		rest = rest[k:]
		m, k := binary.Uvarint(rest)
		rest = rest[k:]
		start := all.Len()
		all.WriteString(prev[:shared])
		all.Write(rest[:m])
		rest = rest[m:]
		prev = all.String()[start:]
		out = append(out, prev)
	}
	return out
}
