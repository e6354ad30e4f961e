package store

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"time"

	"contractkit/mockserver/apierr"
	"contractkit/mockserver/lifecycle"
	"contractkit/wire"
)

// ModelInput is a model create request, already validated against the
// contract and with the seed's alternative spellings folded in (D-21).
type ModelInput struct {
	Name           string
	DatasetID      string
	Description    *string
	BaseModelID    *int64
	TrainingTypeID *string
	UseCaseID      *int64
	PersonaID      *int64
}

type model struct {
	id             int64
	name           string
	description    *string
	datasetID      int64
	baseModelID    *int64
	trainingTypeID *string
	useCaseID      *int64
	personaID      *int64
	category       string
	baseModelName  string
	fineTune       string
	training       lifecycle.Training
	createdAt      time.Time

	// encoded is the view as JSON once the training has ended, kept while
	// the store's version is encodedAt (ModelJSON).
	encoded   []byte
	encodedAt uint64
}

// ModelView is a model as the API shows it: the one Go type of the
// Model's shape, wire.Model (every field of seed §2.1, which the mock
// fills with the seed's defaults where it has nothing better).
type ModelView = wire.Model

func ptr[T any](v T) *T { return &v }

// CreateModel starts training a model on a live dataset of the account.
func (a *Account) CreateModel(in ModelInput) (ModelView, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	d, err := a.liveDataset(in.DatasetID)
	if err != nil {
		return ModelView{}, err
	}
	now := a.now()
	m := &model{
		id: a.nextID(), name: in.Name, description: in.Description, datasetID: d.id,
		baseModelID: in.BaseModelID, trainingTypeID: in.TrainingTypeID, useCaseID: in.UseCaseID,
		personaID: in.PersonaID, category: "General", baseModelName: "llama-3.1-8b-instruct",
		fineTune: "lora", createdAt: now,
		training: lifecycle.Training{CreatedAt: now, Duration: a.store.cfg.TrainDuration},
	}
	a.models[m.id] = m
	a.commit(change{Model: ptr(m.snap())})
	return a.modelView(m), nil
}

// Model returns one model with its training state as of now.
func (a *Account) Model(id string) (ModelView, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m, err := a.model(id)
	if err != nil {
		return ModelView{}, err
	}
	return a.modelView(m), nil
}

// ModelJSON is Model as JSON (apierr.Marshal). GET of a model is the
// request a frontend polls; once the training has ended nothing in the view
// depends on the clock, so its encoding is kept until the store next
// changes (any write, in any account, moves the version).
func (a *Account) ModelJSON(id string) (json.RawMessage, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m, err := a.model(id)
	if err != nil {
		return nil, err
	}
	// Every write to this account holds a.mu and moves the version before
	// releasing it, so the view below is the state of this version.
	version := a.store.version.Load()
	if m.encoded != nil && m.encodedAt == version {
		return m.encoded, nil
	}
	b, err := apierr.Marshal(a.modelView(m))
	if err != nil {
		return nil, err
	}
	if lifecycle.TrainingState(m.training, a.now()).Done {
		m.encoded, m.encodedAt = b, version
	}
	return b, nil
}

// Models lists every model, oldest first (D-01).
func (a *Account) Models() []ModelView {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []ModelView{}
	for _, id := range sortedKeys(a.models) {
		out = append(out, a.modelView(a.models[id]))
	}
	return out
}

// DeleteModel deletes a model and its conversations. Evaluations of it stay,
// with the model summary they were created with.
func (a *Account) DeleteModel(id string) (DeleteResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m, err := a.model(id)
	if err != nil {
		return DeleteResult{}, err
	}
	delete(a.models, m.id)
	gone := &removed{Models: []int64{m.id}}
	for _, cid := range sortedKeys(a.conversations) {
		if a.conversations[cid].modelID == m.id {
			delete(a.conversations, cid)
			gone.Conversations = append(gone.Conversations, cid)
		}
	}
	a.commit(change{Removed: gone})
	return DeleteResult{Message: "Model deleted", ID: idString(m.id)}, nil
}

func (a *Account) model(id string) (*model, error) {
	n, ok := parseID(id)
	if m := a.models[n]; ok && m != nil {
		return m, nil
	}
	return nil, apierr.New(apierr.NotFound, "model %s not found", quoteID(id))
}

// modelData is the dataset a model answers from; it survives a soft delete.
func (a *Account) modelData(m *model) *dataset { return a.datasets[m.datasetID] }

// modelFields holds the values a ModelView's nullable fields point to, so
// that a view costs one allocation for them rather than one per field (GET
// of a model is the hottest read of the mock).
type modelFields struct {
	category, baseModelName, filePath, status, graphStatus, fineTune, ownerEmail string
	size, datasetID, trainedModelID                                              int64
	hasImage, fineTuned, private, sharedWithOrg, shared                          bool
	progress, sharedUserCount, pendingRequests                                   int
	tokenSpeed, responseTime, successRate                                        float64
	createdAt, updatedAt                                                         time.Time
}

func (a *Account) modelView(m *model) ModelView {
	st := lifecycle.TrainingState(m.training, a.now())
	f := &modelFields{
		category: m.category, baseModelName: m.baseModelName, status: st.Status, graphStatus: st.GraphStatus,
		fineTune: m.fineTune, ownerEmail: "owner@" + a.name + ".example", size: 8, datasetID: m.datasetID,
		fineTuned: st.FineTuned, private: true, progress: st.Progress, successRate: 100,
		createdAt: m.createdAt, updatedAt: m.createdAt,
	}
	if st.TrainedAt != nil {
		f.updatedAt = st.TrainedAt.UTC()
	}
	v := ModelView{
		ID: m.id, Name: m.name, Description: m.description, Category: &f.category,
		SizeNumeric: &f.size, BaseModelName: &f.baseModelName, TrainingTypeID: m.trainingTypeID,
		DatasetID: &f.datasetID, FilePath: &f.filePath, BaseModelID: m.baseModelID, PersonaID: m.personaID,
		HasImage: &f.hasImage, TrainedAt: st.TrainedAt, Status: &f.status, GraphStatus: &f.graphStatus,
		GraphBuildProgress: &f.progress, FineTuningStatus: &f.fineTuned, FineTune: &f.fineTune,
		TokenSpeed: &f.tokenSpeed, ResponseTime: &f.responseTime, SuccessRate: &f.successRate, IsPrivate: &f.private,
		SharedWithOrganization: &f.sharedWithOrg, OwnerEmail: &f.ownerEmail,
		IsShared: &f.shared, SharedUserCount: &f.sharedUserCount, PendingDatasetAccessRequests: &f.pendingRequests,
		CreatedAt: &f.createdAt, UpdatedAt: &f.updatedAt,
	}
	if m.useCaseID != nil {
		v.UseCaseID = *m.useCaseID
	}
	if st.TrainedAt != nil && st.Status == lifecycle.StatusReady {
		h := hash64(m.name)
		f.trainedModelID = m.id*1000 + 7
		v.TrainedModelID = &f.trainedModelID
		f.tokenSpeed = 35 + float64(h%200)/10
		f.responseTime = 0.4 + float64(h%80)/100
		v.Metrics = &wire.Metrics{
			Accuracy:            0.85 + float64(h%100)/1000,
			Loss:                0.15 + float64(h%50)/1000,
			ValidationAccuracy:  0.82 + float64(h%90)/1000,
			TrainingTime:        m.training.Duration.String(),
			EpochsCompleted:     3,
			ParametersOptimized: fmt.Sprintf("%.1fM", 4+float64(h%80)/10),
		}
		if d := a.modelData(m); d != nil {
			size, rows := d.totals()
			v.DatasetInfo = &wire.DatasetInfo{Name: d.name, Size: size, Samples: rows, DataType: d.kind(), Updated: d.updatedAt}
		}
	}
	return v
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return h.Sum64()
}
