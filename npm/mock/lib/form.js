'use strict';
// formData turns a typed form body into FormData, for openapi-fetch's
// bodySerializer on the two upload operations (multipart/form-data, seed
// §4.3): the shipped types give each file part as a Blob (a File is one),
// so a body is written and checked like a JSON one and sent as a form.
//
//   api.POST('/api/v1/user/dataset', { body: { dataset_name: 'Handbook', files: [file] }, bodySerializer: formData })
//
// Each field becomes one part; a list, one part per item under the same
// name (the contract's `files`); a Blob, a file part, named as the File
// is; a string, number or boolean, a text part; null and undefined, none.
// No Node module is used: it runs in a browser as in Node 18 and later.

function formData(body) {
  const form = new FormData();
  for (const [name, value] of Object.entries(body ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      if (item instanceof Blob) {
        form.append(name, item);
      } else if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') {
        form.append(name, String(item));
      } else {
        throw new TypeError(`formData: field ${name} holds ${Object.prototype.toString.call(item)}: a form takes text and Blobs (Files) only`);
      }
    }
  }
  return form;
}

module.exports = { formData };
