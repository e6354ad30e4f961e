package mutation

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"time"

	"contractkit/spec"
)

// liberal are the valid variants where the reference is silent and a
// conforming server may well differ from the mock, and the mutants of
// decided rules (run with --strict). They are a second table only to keep
// mutants.go readable; List and Lookup see both.
var liberal = []Mutant{
	// ---- valid: the reference is silent; the default run must pass ----
	{Name: "valid-dataset-tags-as-strings", Area: "variant", Valid: true, Breaks: "dataset tags and urls are echoed as the comma-joined strings sent (not fields of the reference, D-08)",
		Answer: onArea("datasets", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				if m, ok := x.(map[string]any); ok && m["file_count"] != nil {
					for _, k := range []string{"tags", "urls"} {
						if list, ok := m[k].([]any); ok {
							parts := make([]string, 0, len(list))
							for _, s := range list {
								str, _ := s.(string)
								parts = append(parts, str)
							}
							m[k] = strings.Join(parts, ",")
						}
					}
				}
				return x
			})
		}))},
	{Name: "valid-status-filter-named-state", Area: "variant", Valid: true, Breaks: "the evaluation list's status filter is named state: status is ignored, any value of it answered 200 (the filter is §3.1's, its name D-05's)",
		Request: func(x *Exchange) {
			if x.is(opListEvaluations) {
				q := x.Req.URL.Query()
				st := q.Get("state")
				q.Del("status")
				q.Del("state")
				if st != "" {
					q.Set("status", st)
				}
				x.Req.URL.RawQuery = q.Encode()
			}
		}},
	{Name: "valid-evaluation-model-other", Area: "variant", Valid: true, Breaks: "an evaluation's model object has other contents (its shape is not shown, D-09)",
		Answer: onArea("evaluations", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				if m, ok := x.(map[string]any); ok && m["benchmark_type"] != nil {
					if mo, ok := m["model"].(map[string]any); ok {
						m["model"] = map[string]any{"model_name": mo["name"], "provider": "in-house", "ready": mo["status"] == "ready"}
					}
				}
				return x
			})
		}))},
	{Name: "valid-results-other-shape", Area: "variant", Valid: true, Breaks: "evaluation results are a list of named metrics (their shape is not shown)",
		Answer: onArea("evaluations", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				if m, ok := x.(map[string]any); ok && m["benchmark_type"] != nil && m["results"] != nil {
					m["results"] = map[string]any{"metrics": []any{map[string]any{"name": "faithfulness", "value": 0.9}}, "summary": "scored"}
				}
				return x
			})
		}))},
	{Name: "valid-model-nulls-omitted", Area: "variant", Valid: true, Breaks: "null model fields are left out (only id and name are always present, §2.1)",
		Answer: onArea("models", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				if m, ok := x.(map[string]any); ok && m["graph_status"] != nil {
					for k, f := range m {
						if f == nil && k != "id" && k != "name" {
							delete(m, k)
						}
					}
				}
				return x
			})
		}))},
	{Name: "valid-model-status-active", Area: "variant", Valid: true, Breaks: `a trained model's status is "active", a value the reference does not list (D-11)`,
		Answer: jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				if m, ok := x.(map[string]any); ok && m["status"] == "ready" && m["graph_status"] != nil {
					m["status"] = "active"
				}
				return x
			})
		})},
	{Name: "valid-evaluation-type-other", Area: "variant", Valid: true, Breaks: `an evaluation's type reads "rag-benchmark" whatever was sent (the reference shows one value, D-11)`,
		Answer: onArea("evaluations", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(_ string, x any) any {
				if m, ok := x.(map[string]any); ok && m["benchmark_type"] != nil && m["type"] != nil {
					m["type"] = "rag-benchmark"
				}
				return x
			})
		}))},
	{Name: "valid-stream-extra-chunks", Area: "variant", Valid: true, Breaks: "the stream carries reasoning chunks and status chunks with object payloads before the answer (D-03)",
		Stream: eachWrite(func(_ *Exchange, n int, p []byte) []byte {
			if n != 0 {
				return p
			}
			extra := `data: {"type":"reasoning","content":"looking up the policy"}` + "\n\n" +
				`data: {"type":"status","content":{"stage":"generating","progress":0.5}}` + "\n\n"
			return append([]byte(extra), p...)
		})},
	{Name: "valid-gzip-answers", Area: "variant", Valid: true, Breaks: "JSON answers are gzip-compressed when the client sends Accept-Encoding: gzip",
		Answer: func(x *Exchange, a *Answer) {
			if !strings.Contains(x.Client.Header.Get("Accept-Encoding"), "gzip") || len(a.Body) == 0 {
				return
			}
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			if _, err := zw.Write(a.Body); err != nil || zw.Close() != nil {
				return
			}
			a.Body = b.Bytes()
			a.Header.Set("Content-Encoding", "gzip")
			a.Header.Add("Vary", "Accept-Encoding")
		}},
	{Name: "valid-stream-tiny-writes", Area: "variant", Valid: true, Breaks: "the stream is written three bytes at a time, each flushed",
		Stream: func(_ *Exchange, _ http.Header) StreamFilter {
			return StreamFilter{Write: func(out StreamOut, p []byte) error {
				for len(p) > 0 {
					n := min(3, len(p))
					if _, err := out.Write(p[:n]); err != nil {
						return err
					}
					if err := out.Flush(); err != nil {
						return err
					}
					p = p[n:]
				}
				return nil
			}}
		}},
	{Name: "valid-error-empty-message", Area: "variant", Valid: true, Breaks: `error envelopes carry message "" (the reference says only "a string")`,
		Answer: jsonAnswer(func(_ *Exchange, status int, v any) any {
			if m, ok := v.(map[string]any); ok && status >= 400 {
				if _, has := m["message"]; has {
					m["message"] = ""
				}
			}
			return v
		})},

	// Run like a modelled entry (the Explore area only): the reference
	// model's part is what a slow server once made leave its resources.
	{Name: "valid-latency-150ms", Area: "variant", Valid: true, Model: true, Clean: true,
		Breaks:  "every answer comes 150 ms late (a server far away, or busy): the run takes longer and leaves nothing behind",
		Request: func(x *Exchange) { late(x, 150*time.Millisecond) }},

	// ---- decided rules: fail only under --strict ----
	{Name: "stream-buffered", Area: "inference", Decided: "D-26", Breaks: "the stream is held back and written whole at its end",
		Stream: func(_ *Exchange, _ http.Header) StreamFilter {
			var held bytes.Buffer
			return StreamFilter{
				Write: func(_ StreamOut, p []byte) error { held.Write(p); return nil },
				Flush: func(StreamOut) error { return nil },
				End: func(out StreamOut) error {
					if _, err := out.Write(held.Bytes()); err != nil {
						return err
					}
					return out.Flush()
				},
			}
		}},
	{Name: "delete-running-400", Area: "evaluations", Decided: "D-13", Breaks: "the refusal to delete a running evaluation is 400, not 409",
		Answer: onOperation(opDeleteEvaluation, onStatus(http.StatusConflict, func(_ *Exchange, a *Answer) {
			a.Status = http.StatusBadRequest
		}))},
	{Name: "delete-success-without-message", Area: "models", Decided: "D-02", Breaks: "model and dataset deletes answer data without message",
		Answer: onOperation(ops(spec.OpDeleteModel, spec.OpDeleteDataset, spec.OpDeleteConversation), onStatus(http.StatusOK, jsonAnswer(func(_ *Exchange, _ int, v any) any {
			if d, ok := dig(v, "data").(map[string]any); ok {
				delete(d, "message")
			}
			return v
		})))},
	{Name: "dataset-type-outside-enum", Area: "datasets", Decided: "D-11", Breaks: `a mixed dataset's type reads "assorted"`,
		Answer: onArea("datasets", jsonAnswer(func(_ *Exchange, _ int, v any) any {
			return walkJSON(v, func(k string, x any) any {
				if k == "type" && x == "mixed" {
					return "assorted"
				}
				return x
			})
		}))},
}

// late holds the request d before the mock sees it, or until the client
// leaves.
func late(x *Exchange, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-x.Client.Context().Done():
	}
}
