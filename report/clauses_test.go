package report

import "testing"

func TestMarkdownEscapesOutsideCodeSpans(t *testing.T) {
	got := mdInline("refuse `model_id` and <key> in *bold_text* or `<key>`")
	want := "refuse `model_id` and &lt;key&gt; in \\*bold\\_text\\* or `<key>`"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
