package recording

import (
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"contractkit/fixtures"
	"contractkit/mockserver/retrieval"
	"contractkit/spec"
)

// maxFileBytes is the largest file the mock extracts: D-15 gives a file no
// cap of its own, so one may fill a multipart body, whose bound the
// contract's x-request-limits mark states. A recorded file is checked with
// the same bound.
func maxFileBytes() int64 { return spec.RequestLimits().MultipartBodyBytes }

// built is one account's fixture set, its files by generated name, and what
// could not be kept as it was.
type built struct {
	set     fixtures.Set
	files   map[string][]byte
	skipped []string // records or files left out, with why
	changed []string // records kept with a value the format can hold instead
}

// builder turns an account into a set that fixtures.Validate accepts: every
// record the format cannot hold is left out and named, never guessed.
type builder struct {
	a      *account
	redact func(string) string
	out    built
	// ids taken so far: datasets, models and evaluations share one sequence
	// in the fixture format (fixtures.MaxID).
	ids map[int64]bool
}

func build(a *account, redact func(string) string) built {
	b := &builder{a: a, redact: redact, ids: map[int64]bool{}, out: built{files: map[string][]byte{}}}
	b.out.set = fixtures.Set{Datasets: []fixtures.Dataset{}, Models: []fixtures.Model{}, Conversations: []fixtures.Conversation{}, Evaluations: []fixtures.Evaluation{}}
	datasets := b.datasets()
	models := b.models(datasets)
	b.conversations(models)
	b.evaluations(models)
	return b.out
}

func (b *builder) skip(format string, args ...any) {
	b.out.skipped = append(b.out.skipped, fmt.Sprintf(format, args...))
}

func (b *builder) change(format string, args ...any) {
	b.out.changed = append(b.out.changed, fmt.Sprintf(format, args...))
}

// keepID is the record's id when the format can hold it, else 0 (the mock
// then assigns one after the kept ids).
func (b *builder) keepID(what string, id int64) int64 {
	if id < 1 || id > fixtures.MaxID || b.ids[id] {
		b.change("%s: id %d not kept (outside 1..%d, or also another record's id)", what, id, fixtures.MaxID)
		return 0
	}
	b.ids[id] = true
	return id
}

// name is a record's name as the format needs it: redacted, non-empty and
// unique among its kind; "" when the record cannot be kept.
func (b *builder) name(what, raw string, taken map[string]bool) string {
	n := b.redact(raw)
	switch {
	case strings.TrimSpace(n) == "":
		b.skip("%s: its name was never seen or is empty", what)
		return ""
	case taken[n]:
		b.skip("%s: name %q is already another recorded record's (names are unique in a fixture set)", what, n)
		return ""
	}
	taken[n] = true
	return n
}

// datasets returns the fixture key of each recorded dataset id.
func (b *builder) datasets() map[int64]string {
	keys := map[int64]string{}
	names := map[string]bool{}
	for _, id := range slices.Sorted(maps.Keys(b.a.datasets)) {
		d := b.a.datasets[id]
		what := fmt.Sprintf("dataset %d", id)
		name := b.name(what, d.name, names)
		if name == "" {
			continue
		}
		fd := fixtures.Dataset{
			Key: fmt.Sprintf("dataset-%d", id), Name: name, Description: b.redact(d.description),
			Tags: []string{}, URLs: []string{}, Files: []string{}, FileNames: []string{},
		}
		for _, t := range d.tags {
			if t = b.redact(strings.TrimSpace(t)); t != "" && !strings.Contains(t, ",") {
				fd.Tags = append(fd.Tags, t)
			}
		}
		for _, u := range d.urls {
			if p, err := url.Parse(u); err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != "" {
				fd.URLs = append(fd.URLs, b.redact(u))
			} else {
				b.skip("%s %q: url %q is not an absolute http(s) URL", what, name, u)
			}
		}
		b.files(&fd, d, id, what)
		if len(fd.Files) == 0 && len(fd.URLs) == 0 {
			b.skip("%s %q: no file of it passed the proxy readable and it has no URL", what, name)
			delete(names, name)
			continue
		}
		fd.ID = b.keepID(what, id)
		b.out.set.Datasets = append(b.out.set.Datasets, fd)
		keys[id] = fd.Key
	}
	return keys
}

// files adds the dataset's uploaded files under generated names, keeping
// the uploaded name only as the shown name.
func (b *builder) files(fd *fixtures.Dataset, d *dataset, id int64, what string) {
	missing := slices.Clone(d.shown)
	for i, u := range d.files {
		shown := shownName(b.redact(u.name))
		if j := slices.Index(missing, u.name); j >= 0 {
			missing = slices.Delete(missing, j, j+1)
		}
		data := []byte(b.redact(string(u.data)))
		if len(data) == 0 {
			b.skip("%s %q: file %q left out: the mock cannot read it (an empty file is a failed file, D-16)", what, fd.Name, shown)
			continue
		}
		if _, err := retrieval.Extract(shown, bytes.NewReader(data), retrieval.Limits{MaxFileBytes: maxFileBytes()}); err != nil {
			b.skip("%s %q: file %q left out: the mock cannot read it (%v)", what, fd.Name, shown, err)
			continue
		}
		gen := fmt.Sprintf("d%d-%d%s", id, i+1, safeExt(shown))
		b.out.files[gen] = data
		fd.Files = append(fd.Files, gen)
		fd.FileNames = append(fd.FileNames, shown)
	}
	for _, m := range missing {
		b.skip("%s %q: file %q listed by the server was not uploaded through the proxy: its text is unknown", what, fd.Name, b.redact(m))
	}
}

// shownName is an uploaded file's name as a fixture may show it: its last
// path element, without control characters, at most 255 bytes.
func shownName(s string) string {
	s = s[strings.LastIndexAny(s, `/\`)+1:]
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return '_'
		}
		return r
	}, s)
	for len(s) > 255 {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	if strings.TrimSpace(s) == "" {
		return "file"
	}
	return s
}

var extPattern = regexp.MustCompile(`^\.[a-z0-9]{1,10}$`)

// safeExt keeps a name's extension for the generated file name when it is
// short letters and digits (the mock reads a file by its extension).
func safeExt(name string) string {
	if e := strings.ToLower(path.Ext(name)); extPattern.MatchString(e) {
		return e
	}
	return ""
}
