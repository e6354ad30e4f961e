'use strict';
// A registry of a few tarballs on 127.0.0.1, for npm/package.test.cjs: npm
// installs @contractkit/mock from it by name, as a team will once it is
// published, and finds there only the platform packages the test built (a
// 404 for the others, as for any unpublished name). It serves what npm's
// install reads: a package's document (its versions, each with the
// tarball's address and integrity) and the tarball.
//
//   node npm/registry.cjs A.tgz B.tgz    prints its address, serves until killed
//
// A process of its own: the test runs npm synchronously, which would stop
// a server in the test's own process from answering.
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

// serve listens on a free port and resolves with { url, close }.
function serve(tarballs) {
  const pkgs = new Map();
  for (const file of tarballs) {
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', file, 'package/package.json'], { encoding: 'utf8' }));
    const bytes = fs.readFileSync(file);
    pkgs.set(manifest.name, { manifest, bytes, file: path.basename(file) });
  }
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const base = `http://127.0.0.1:${server.address().port}`;
    for (const [name, p] of pkgs) {
      if (url === `/${name}`) {
        const version = {
          ...p.manifest,
          dist: { tarball: `${base}/-/${p.file}`, integrity: `sha512-${crypto.createHash('sha512').update(p.bytes).digest('base64')}` },
        };
        const doc = { name, 'dist-tags': { latest: p.manifest.version }, versions: { [p.manifest.version]: version } };
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(doc));
        return;
      }
      if (url === `/-/${p.file}`) {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(p.bytes);
        return;
      }
    }
    res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"Not found"}');
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({
      url: `http://127.0.0.1:${server.address().port}/`,
      close: () => new Promise((done) => server.close(done)),
    }));
  });
}

if (require.main === module) {
  serve(process.argv.slice(2)).then(({ url }) => process.stdout.write(`${url}\n`), (err) => {
    process.stderr.write(`npm/registry.cjs: ${err.message}\n`);
    process.exit(1);
  });
}

module.exports = { serve };
