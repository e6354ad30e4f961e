package retrieval

import (
	"testing"
)

// TestDetectKind covers files whose kind comes from their content, not
// their extension.
func TestDetectKind(t *testing.T) {
	checkKinds(t, []kindCase{
		{name: "sniffed json", file: "data", content: `{"k":"v"}`, kind: KindJSON, rows: 1, contains: []string{"k: v"}},
		{name: "sniffed json lines", file: "data.out", content: "{\"k\":1}\n{\"k\":2}\n", kind: KindJSON, rows: 2},
		{name: "sniffed text", file: "README", content: "hello world\n", kind: KindText, rows: 1, contains: []string{"hello world"}},
		{name: "name is only a label", file: "../../etc/passwd", content: "root\n", kind: KindText, rows: 1},
	})
}

// TestDetectRefusesBinary covers content refused from its first bytes.
func TestDetectRefusesBinary(t *testing.T) {
	checkErrors(t, []errorCase{
		{"NUL in text", "a.txt", "abc\x00def", ErrUnsupported},
		{"invalid UTF-8 in csv head", "a.csv", "a,b\n\xff,1\n", ErrUnsupported},
		{"png with unknown extension", "image.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", ErrUnsupported},
		{"zip without extension", "archive", "PK\x03\x04\x14\x00\x00\x00", ErrUnsupported},
		{"utf-16 text", "u16.txt", "\xff\xfeh\x00i\x00", ErrUnsupported},
	})
}
