package spec

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestResourcesAreTheItemPaths(t *testing.T) {
	var got []string
	for _, r := range Strict().Resources() {
		got = append(got, fmt.Sprintf("%s %s %s", r.Collection, r.Param, r.Item))
		if Strict().ResourceNamed(r.Param) != r {
			t.Errorf("ResourceNamed(%q) is not the resource of %s", r.Param, r.Collection)
		}
	}
	want := []string{
		"/api/v1/evaluations evaluation_id /api/v1/evaluations/{evaluation_id}",
		"/api/v1/user/conversations conversation_id /api/v1/user/conversations/{conversation_id}",
		"/api/v1/user/dataset dataset_id /api/v1/user/dataset/{dataset_id}",
		"/api/v1/user/model model_id /api/v1/user/model/{model_id}",
	}
	if !slices.Equal(got, want) {
		t.Errorf("resources:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r := Strict().ResourceNamed("thread_id"); r != nil {
		t.Errorf("thread_id names %v; no path has {thread_id}", r)
	}
	if w := Strict().ResourceNamed("evaluation_id").Word(); w != "evaluation" {
		t.Errorf("Word = %q, want evaluation", w)
	}
}

func TestPlace(t *testing.T) {
	for id, want := range map[string]struct {
		role  Role
		param string
	}{
		"createModel": {RoleCreate, "model_id"}, "listConversations": {RoleList, "conversation_id"},
		"getDataset": {RoleGet, "dataset_id"}, "renameConversation": {RoleUpdate, "conversation_id"},
		"updateEvaluation": {RoleUpdate, "evaluation_id"}, "deleteEvaluation": {RoleDelete, "evaluation_id"},
		"listMessages": {RoleChild, "conversation_id"}, "startEvaluation": {RoleChild, "evaluation_id"},
		"runInference": {RoleOther, ""}, "uploadDatasetFiles": {RoleOther, ""}, "checkEvaluationName": {RoleOther, ""},
	} {
		op, _ := Strict().Operation(id)
		role, r := Strict().Place(op)
		param := ""
		if r != nil {
			param = r.Param
		}
		if role != want.role || param != want.param {
			t.Errorf("Place(%s) = %d %q, want %d %q", id, role, param, want.role, want.param)
		}
	}
}

func TestReferences(t *testing.T) {
	render := func(refs []Reference) string {
		var s []string
		for _, r := range refs {
			req := "optional"
			if r.Required {
				req = "required"
			}
			s = append(s, fmt.Sprintf("%s %s %s → %s", r.In, r.Name, req, r.Resource.Collection))
		}
		return strings.Join(s, "; ")
	}
	for id, want := range map[string]string{
		"createModel":         "body dataset_id required → /api/v1/user/dataset",
		"runInference":        "body conversation_id optional → /api/v1/user/conversations; body model_id required → /api/v1/user/model",
		"listConversations":   "query model_id required → /api/v1/user/model",
		"createConversation":  "body model_id required → /api/v1/user/model",
		"renameConversation":  "path conversation_id required → /api/v1/user/conversations",
		"listMessages":        "path conversation_id required → /api/v1/user/conversations",
		"uploadDatasetFiles":  "body dataset_id required → /api/v1/user/dataset",
		"createEvaluation":    "body model_id required → /api/v1/user/model",
		"createDataset":       "",
		"listModels":          "",
		"checkEvaluationName": "",
	} {
		op, _ := Strict().Operation(id)
		if got := render(Strict().References(op)); got != want {
			t.Errorf("References(%s) = %q, want %q", id, got, want)
		}
	}
}

// A resource added to the contract is found with its operations' places
// and references, with no list to extend.
func TestAResourceAddedToTheContractIsRead(t *testing.T) {
	add := `  /api/v1/user/projects:
    post:
      operationId: createProject
      x-seed: '4.1.3'
      tags: [models]
      summary: Create a project
      requestBody:
        required: true
        x-seed: '4.1'
        content:
          application/json:
            schema:
              type: object
              x-seed: '4.1'
              required: [model_id]
              properties: { model_id: { type: integer }, dataset_id: { type: string } }
            examples:
              one: { value: { model_id: 7 } }
      responses:
        '200':
          description: The project.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/DeleteEnvelope' }
              examples:
                made: { value: { status: success, data: { message: made, id: '1' } } }
  /api/v1/user/projects/{project_id}:
    parameters:
      - { name: project_id, in: path, required: true, x-seed: '4', schema: { type: string } }
    delete:
      operationId: deleteProject
      x-seed: '4.1.4'
      tags: [models]
      summary: Delete a project
      responses:
        '200':
          description: Deleted.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/DeleteEnvelope' }
              examples:
                gone: { value: { status: success, data: { message: gone, id: '1' } } }
`
	raw := strings.Replace(string(Document), "\npaths:\n", "\npaths:\n"+add, 1)
	c, err := Build([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	r := c.ResourceNamed("project_id")
	if r == nil || r.Collection != "/api/v1/user/projects" {
		t.Fatalf("project_id names %+v", r)
	}
	create, _ := c.Operation("createProject")
	if role, got := c.Place(create); role != RoleCreate || got != r {
		t.Errorf("Place(createProject) = %d %+v", role, got)
	}
	if got, want := len(c.References(create)), 2; got != want {
		t.Errorf("createProject names %d resources, want %d (model_id, dataset_id)", got, want)
	}
	del, _ := c.Operation("deleteProject")
	if refs := c.References(del); len(refs) != 1 || refs[0].Resource != r || refs[0].In != InPath {
		t.Errorf("References(deleteProject) = %+v", refs)
	}
}

// Every operation names the seed clause that states it in an x-seed mark:
// an endpoint of the §4 subsection its tag describes, no two operations
// the same.
func TestEveryOperationHasItsClause(t *testing.T) {
	endpoint := regexp.MustCompile(`^4\.([1-5])\.[1-9][0-9]?$`)
	section := map[string]string{}
	for _, tag := range Strict().Kin.Tags {
		if m := regexp.MustCompile(`§(4\.[1-5])`).FindStringSubmatch(tag.Description); m != nil {
			section[tag.Name] = m[1]
		}
	}
	seen := map[string]string{}
	for _, op := range Strict().Operations {
		if !endpoint.MatchString(op.Clause) {
			t.Errorf("%s: x-seed %q on the operation, want the endpoint's clause 4.N.k", op.ID, op.Clause)
			continue
		}
		kin, _ := Strict().KinOperation(op.ID)
		if want := section[kin.Tags[0]]; !strings.HasPrefix(op.Clause, want+".") {
			t.Errorf("%s: clause %s, but its tag %s is §%s", op.ID, op.Clause, kin.Tags[0], want)
		}
		if other, dup := seen[op.Clause]; dup {
			t.Errorf("%s and %s both claim clause %s", other, op.ID, op.Clause)
		}
		seen[op.Clause] = op.ID
	}
}

// An operation's x-seed is held to the reference's clauses like any mark.
func TestTraceRefusesAnUnknownOperationClause(t *testing.T) {
	doc := strings.Replace(string(Document), "x-seed: '4.1.1'", "x-seed: '4.9.1'", 1)
	_, problems, err := trace([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := `/paths/~1api~1v1~1user~1model/get: x-seed "4.9.1" is not a clause of the API reference`
	if !slices.Contains(problems, want) {
		t.Errorf("no problem %q; got %v", want, problems)
	}
}
