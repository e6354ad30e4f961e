#!/usr/bin/env node
// The shipped types (npm/mock/types/api.d.ts) from the contract, as `make
// api-types` writes them and `make types` checks them:
//
//   node tools/api-types.mjs spec/openapi.yaml OUT.d.ts
//
// openapi-typescript's CLI types a file part (`format: binary`) as a string,
// so a browser's File needs a cast; its Node API takes a `transform`, and
// openapi-typescript's documented recipe makes such a part a Blob (a File is
// one). Everything else is as its CLI would write it with
// --default-non-nullable false: a field with a default stays optional to
// send (without it, every such field would be required).
//
// It needs openapi-typescript 7.13 with TypeScript 5.9 (both pinned in
// tools/package.json): TypeScript 7 lacks the compiler API openapi-typescript
// calls ("Cannot read properties of undefined (reading 'createKeywordTypeNode')").
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import ts from 'typescript';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  process.stderr.write('usage: node tools/api-types.mjs spec/openapi.yaml OUT.d.ts\n');
  process.exit(2);
}

const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));
const NULL = ts.factory.createLiteralTypeNode(ts.factory.createNull());

const ast = await openapiTS(pathToFileURL(input), {
  defaultNonNullable: false,
  transform(schema) {
    if (schema.format === 'binary') return schema.nullable ? ts.factory.createUnionTypeNode([BLOB, NULL]) : BLOB;
    return undefined;
  },
});
fs.writeFileSync(output, COMMENT_HEADER + astToString(ast));
