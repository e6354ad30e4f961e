package store

import (
	"strconv"

	"contractkit/mockserver/apierr"
)

// AppendJSON is apierr.Appender: the view as encoding/json writes it (its
// fields in order, with their tags), without reflection; the answer to
// creating a conversation is one of the mock's most frequent. It reports
// false at the first field it does not write itself.
func (v ConversationView) AppendJSON(b []byte) ([]byte, bool) {
	ok := true
	b = append(b, `{"id":`...)
	if b, ok = apierr.AppendString(b, v.ID); !ok {
		return b, false
	}
	b = append(b, `,"model_id":`...)
	b = strconv.AppendInt(b, v.ModelID, 10)
	b = append(b, `,"created_at":`...)
	if b, ok = apierr.AppendTime(b, v.CreatedAt); !ok {
		return b, false
	}
	b = append(b, `,"updated_at":`...)
	if b, ok = apierr.AppendTime(b, v.UpdatedAt); !ok {
		return b, false
	}
	b = append(b, `,"total_messages":`...)
	b = strconv.AppendInt(b, int64(v.TotalMessages), 10)
	b = append(b, `,"title":`...)
	if b, ok = apierr.AppendString(b, v.Title); !ok {
		return b, false
	}
	b = append(b, `,"message":`...)
	if b, ok = apierr.AppendString(b, v.Message); !ok {
		return b, false
	}
	b = append(b, `,"message_timestamp":`...)
	if v.MessageTimestamp == nil {
		b = append(b, "null"...)
	} else if b, ok = apierr.AppendTime(b, *v.MessageTimestamp); !ok {
		return b, false
	}
	return append(b, '}'), true
}
