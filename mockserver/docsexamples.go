package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"contractkit/mockserver/store"
)

// The docs page renders the contract as this mock serves it
// (GET /docs/openapi.json), so that "Try it out" works as shipped:
//
//   - servers: this mock's own address, where the contract says "the
//     service base address {base_url}" (a label Swagger UI would show raw);
//   - every example id a request carries — path and query parameters named
//     model_id, dataset_id, conversation_id, evaluation_id, and those fields
//     in request body examples — is a record of the account: the caller's
//     when the request carries a key, else the first key's (the development
//     key's with `make run`), whose fixtures a fresh start preloads. Ids are
//     numbered per account, so no single id exists in every account;
//   - the page opens with a plain introduction for app developers (what the
//     API is, the key, where to start: docs/intro.md), the contract's own
//     description (its marks, its seed clauses) folded below it; every other
//     description opens with its plain words, its contract notes folded
//     (docsnotes.go).
//
// GET /openapi.yaml and /openapi.json stay the contract as written.

// docsIDFields are the names an id of a record goes by, in parameters and
// request bodies alike.
var docsIDFields = map[string]bool{"model_id": true, "dataset_id": true, "conversation_id": true, "evaluation_id": true}

// docsSlot is one value of the docs document filled in per request.
type docsSlot struct {
	token []byte // the placeholder as it appears in the JSON template
	field string // an id field, or "" for the server address
	asInt bool   // the example is a JSON number, not a string
	orig  []byte // the contract's own value, kept when the account has no such record
}

type docsTemplate struct {
	json  []byte
	slots []docsSlot
}

var (
	docsTemplateOnce sync.Once
	docsTemplateData docsTemplate
	docsTemplateErr  error
)

// docsContract answers GET /docs/openapi.json.
func (s *Server) docsContract(r *http.Request) ([]byte, error) {
	docsTemplateOnce.Do(func() { docsTemplateData, docsTemplateErr = buildDocsTemplate(s.contract.Raw) })
	if docsTemplateErr != nil {
		return nil, docsTemplateErr
	}
	account := s.keys[0].account
	if r.Header.Get("Authorization") != "" {
		if a, err := s.authenticate(r); err == nil {
			account = a
		}
	}
	ids := docsIDs(s.store.Account(account))
	origin := requestOrigin(r)
	out := docsTemplateData.json
	for _, sl := range docsTemplateData.slots {
		var v []byte
		switch id, ok := ids[sl.field]; {
		case sl.field == "":
			v, _ = json.Marshal(origin)
		case !ok:
			v = sl.orig
		case sl.asInt:
			v = []byte(id)
		default:
			v, _ = json.Marshal(id)
		}
		out = bytes.Replace(out, sl.token, v, 1)
	}
	return out, nil
}

// docsIDs picks, from the account, a record of each kind whose example
// calls succeed: a ready model (the first, else any), a conversation of it,
// its dataset, and the newest evaluation.
func docsIDs(a *store.Account) map[string]string {
	ids := map[string]string{}
	models := a.Models()
	var pick *store.ModelView
	for i := range models {
		if st := models[i].Status; st != nil && *st == "ready" {
			pick = &models[i]
			break
		}
	}
	if pick == nil && len(models) > 0 {
		pick = &models[0]
	}
	if pick != nil {
		id := strconv.FormatInt(pick.ID, 10)
		ids["model_id"] = id
		if pick.DatasetID != nil {
			if _, err := a.Dataset(strconv.FormatInt(*pick.DatasetID, 10)); err == nil {
				ids["dataset_id"] = strconv.FormatInt(*pick.DatasetID, 10)
			}
		}
		if cs, err := a.Conversations(id, 1, 0); err == nil && len(cs) > 0 {
			ids["conversation_id"] = cs[0].ID
		}
	}
	if _, ok := ids["dataset_id"]; !ok {
		if ds := a.Datasets(); len(ds) > 0 {
			ids["dataset_id"] = strconv.FormatInt(ds[0].ID, 10)
		}
	}
	if p := a.Evaluations("", 1, 1); len(p.Evaluations) > 0 {
		ids["evaluation_id"] = strconv.FormatInt(p.Evaluations[0].ID, 10)
	}
	return ids
}

// requestOrigin is the address the client reached this mock at, or "/"
// (the page's own origin) when the Host header is not a plain host[:port].
func requestOrigin(r *http.Request) string {
	host := r.Host
	if host == "" || len(host) > 255 || strings.Trim(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]") != "" {
		return "/"
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + host
}

// buildDocsTemplate converts the contract to JSON (nodeJSON, key order kept)
// with a placeholder in every slot docsContract fills.
func buildDocsTemplate(raw []byte) (docsTemplate, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return docsTemplate{}, err
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return docsTemplate{}, fmt.Errorf("contract: not one mapping")
	}
	root := doc.Content[0]
	foldNotes(root)
	if err := introduce(root); err != nil {
		return docsTemplate{}, err
	}
	var t docsTemplate
	slot := func(n *yaml.Node, field string) {
		if n == nil || n.Kind != yaml.ScalarNode {
			return
		}
		orig, err := json.Marshal(scalarValue(n))
		if err != nil {
			return
		}
		// A string no contract holds (it starts with NUL), encoded as
		// nodeJSON will encode it: the token docsContract replaces.
		placeholder := fmt.Sprintf("%sdocs-slot-%d\x00", slotMark, len(t.slots))
		token, _ := json.Marshal(placeholder)
		t.slots = append(t.slots, docsSlot{token: token, field: field, asInt: n.Tag == "!!int", orig: orig})
		n.Tag, n.Value, n.Style = "!!str", placeholder, 0
	}
	if servers := mapValue(root, "servers"); servers != nil && servers.Kind == yaml.SequenceNode {
		for _, sv := range servers.Content {
			slot(mapValue(sv, "url"), "")
			if d := mapValue(sv, "description"); d != nil {
				d.Value = "This mock server; every path lives under /api/v1"
			}
		}
	}
	// Parameters, wherever they are declared.
	walk(root, func(n *yaml.Node) {
		name, in := mapValue(n, "name"), mapValue(n, "in")
		if name == nil || in == nil || !docsIDFields[name.Value] || (in.Value != "path" && in.Value != "query") {
			return
		}
		slot(mapValue(n, "example"), name.Value)
		slot(mapValue(mapValue(n, "schema"), "example"), name.Value)
	})
	// Request body examples, inline or from components/examples.
	examples := mapValue(mapValue(root, "components"), "examples")
	walk(mapValue(root, "paths"), func(n *yaml.Node) {
		content := mapValue(mapValue(n, "requestBody"), "content")
		if content == nil || content.Kind != yaml.MappingNode {
			return
		}
		for i := 1; i < len(content.Content); i += 2 {
			exs := mapValue(content.Content[i], "examples")
			if exs == nil || exs.Kind != yaml.MappingNode {
				continue
			}
			for j := 1; j < len(exs.Content); j += 2 {
				ex := exs.Content[j]
				if ref := mapValue(ex, "$ref"); ref != nil {
					ex = mapValue(examples, strings.TrimPrefix(ref.Value, "#/components/examples/"))
				}
				walk(mapValue(ex, "value"), func(m *yaml.Node) {
					for k := 0; m.Kind == yaml.MappingNode && k+1 < len(m.Content); k += 2 {
						if docsIDFields[m.Content[k].Value] && !isSlot(m.Content[k+1]) {
							slot(m.Content[k+1], m.Content[k].Value)
						}
					}
				})
			}
		}
	})
	var buf bytes.Buffer
	if err := nodeJSON(&buf, &doc); err != nil {
		return docsTemplate{}, err
	}
	t.json = buf.Bytes()
	return t, nil
}

// introduce puts docs/intro.md first in info.description and folds the
// contract's own description below it, in a <details> Swagger UI renders.
func introduce(root *yaml.Node) error {
	intro, err := docsFS.ReadFile("docs/intro.md")
	if err != nil {
		return err
	}
	d := mapValue(mapValue(root, "info"), "description")
	if d == nil {
		return fmt.Errorf("contract: info has no description")
	}
	d.Value = strings.TrimSpace(string(intro)) +
		"\n\n<details>\n<summary>Contract notes: how this document marks what the API reference states and what it decides</summary>\n\n" +
		strings.TrimSpace(d.Value) + "\n\n</details>\n"
	d.Style = yaml.LiteralStyle
	return nil
}

const slotMark = "\x00"

func isSlot(n *yaml.Node) bool { return strings.HasPrefix(n.Value, slotMark+"docs-slot-") }

func scalarValue(n *yaml.Node) any {
	var v any
	if err := n.Decode(&v); err != nil {
		return n.Value
	}
	return v
}

// mapValue is the value of key in a mapping node (nil when n is not a
// mapping or has no such key).
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// walk calls f on n and every node below it, mapping values and sequence
// items (aliases are not followed: the contract has none it needs here).
func walk(n *yaml.Node, f func(*yaml.Node)) {
	if n == nil {
		return
	}
	f(n)
	for _, c := range n.Content {
		walk(c, f)
	}
}
