package mockserver

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"

	"contractkit/internal/textcut"
	"contractkit/mockserver/apierr"
)

// consolePage is the browser console served at GET /: its markup, which
// loads its stylesheet and its script modules from /console/ (consoleFiles):
// no external resource. It calls this server's API with the key typed into
// it; the page itself needs no key.
//
//go:embed console.html
var consolePage []byte

//go:embed console
var consoleFS embed.FS

// consoleAssetPrefix is where the console's stylesheet and modules are served.
const consoleAssetPrefix = "/console/"

// consoleFiles maps each served name (console.css, main.js, ...) to its
// bytes and type, read once from the embedded directory: a request names a
// key of this map, never a file path.
var consoleFiles = loadConsoleFiles()

type consoleFile struct {
	body  []byte
	ctype string
}

func loadConsoleFiles() map[string]consoleFile {
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
	out := map[string]consoleFile{}
	entries, err := fs.ReadDir(consoleFS, "console")
	if err != nil {
		panic("console: the embedded directory is missing: " + err.Error())
	}
	for _, e := range entries {
		ctype, ok := types[path.Ext(e.Name())]
		if e.IsDir() || !ok {
			continue
		}
		b, err := consoleFS.ReadFile("console/" + e.Name())
		if err != nil {
			panic("console: " + err.Error())
		}
		out[e.Name()] = consoleFile{body: b, ctype: ctype}
	}
	return out
}

// consoleCSP lets the page load nothing but its own origin: its stylesheet
// and modules are files of this server, no inline script or style runs.
const consoleCSP = "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// console serves the page; it needs no key (the page asks for one). When the
// mock runs with its generated development key, the page is told so and
// offers it (withDevKey).
func (s *Server) console(w http.ResponseWriter, r *http.Request) {
	if !getOrHead(w, r, s) {
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Referrer-Policy", "no-referrer")
	writeConsole(w, r, s.withDevKey(consolePage))
}

// consoleAsset serves one file of the console's directory.
func (s *Server) consoleAsset(w http.ResponseWriter, r *http.Request) {
	if !getOrHead(w, r, s) {
		return
	}
	f, ok := consoleFiles[strings.TrimPrefix(r.URL.Path, consoleAssetPrefix)]
	if !ok {
		apierr.Write(w, s.log, apierr.New(apierr.NotFound, "No such file: %s", textcut.Shorten(r.URL.Path, 80)))
		return
	}
	w.Header().Set("Content-Type", f.ctype)
	writeConsole(w, r, f.body)
}

func getOrHead(w http.ResponseWriter, r *http.Request, s *Server) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	apierr.Write(w, s.log, apierr.New(apierr.MethodNotAllowed, "use GET"))
	return false
}

// writeConsole writes a console file with the headers every one shares;
// no-cache, so an edited console is never mixed with an old module.
func writeConsole(w http.ResponseWriter, r *http.Request, body []byte) {
	h := w.Header()
	h.Set("Content-Security-Policy", consoleCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
