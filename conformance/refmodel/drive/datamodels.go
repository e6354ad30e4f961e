package drive

import (
	"contractkit/conformance/inputs"
	"contractkit/conformance/refmodel"
)

// dataModels makes the two models later passes work from, training at
// once: fed (of a dataset with files) and starved (of one without).
func (d *driver) dataModels() {
	d.g.key = refmodel.KeyA
	fed, starved := d.startDataModel(true), d.startDataModel(false)
	var ids []string
	var k *inputs.Kind
	for _, p := range []*pendingModel{fed, starved} {
		if p != nil {
			ids, k = append(ids, p.id), p.kind
		}
	}
	if k != nil {
		d.advance(d.cfg.Train, k.Param, ids, terminal(k.Machine)...)
	}
	d.fed, d.starved = d.finishDataModel(fed), d.finishDataModel(starved)
}

// pendingModel is a model dataModels started, and its dataset.
type pendingModel struct {
	kind, src *inputs.Kind
	id, ds    string
}

// startDataModel makes a model (the resource kind whose machine's clock
// runs from its create) of a dataset with files or without (a resource of
// the kind its create names, made without items); its training is awaited
// by the caller: the evaluations of the first complete, those of the
// second fail (D-12: nothing to answer from). The files include text an
// answer will quote (quotes, backslashes, tabs, line breaks).
func (d *driver) startDataModel(items bool) *pendingModel {
	for _, k := range d.cat.Kinds {
		if k.Machine == nil || !clockFromStart(k.Machine) || k.Create == nil {
			continue
		}
		for _, f := range k.Create.IDs {
			src := f.Kind
			if src.Create == nil || len(src.Colls) == 0 {
				continue
			}
			ds := d.make(src, &inputs.State{Coll: src.Colls[0], Items: items}, nil)
			if ds == "" {
				return nil
			}
			if items {
				d.quoting(src, ds)
			}
			r, _ := d.resource(src, ds)
			if id := d.make(k, nil, &r); id != "" {
				return &pendingModel{kind: k, src: src, id: id, ds: ds}
			}
			return nil
		}
	}
	return nil
}

// finishDataModel is the model p started, once trained, kept: later
// passes read from it (evaluations, answers quoting its files), so none
// may delete or change it, or its dataset.
func (d *driver) finishDataModel(p *pendingModel) *refmodel.Resource {
	if p == nil {
		return nil
	}
	m, ok := d.resource(p.kind, p.id)
	if !ok {
		return nil
	}
	d.g.kept[p.src.Param+"/"+p.ds], d.g.kept[p.kind.Param+"/"+p.id] = true, true
	return &m
}
