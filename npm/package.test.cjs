// make npm-test: the npm package as a frontend team gets it. This machine's
// packages are packed (npm/pack.cjs --platforms host), installed from their
// tarballs into an empty folder with no Go on the PATH and no network
// (npm --offline, an empty cache) with the line the packer prints and the
// README gives, and used there: `npx contractkit` runs both commands, the
// README's sizes are the packages', its typed blocks compile as it says and
// its upload reaches the mock, the mock's real /admin answers compile
// against the /admin types the package ships (and every field of those
// types shows up in one), and the README's Playwright recipe (read from
// docs/frontend.md between the npm-recipe markers) type-checks and runs as
// written with four workers beside busy loops, its webServer starting the
// mock through npx. Installed the two ways that leave the binary out (the
// main tarball alone; optional dependencies omitted, from a registry of the
// tarballs on 127.0.0.1), the launcher names each cause and its fix. Only
// the browser differs from a developer's machine: Debian's Chromium, named
// in a config around the README's.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { execFileSync, spawn, spawnSync } = require('node:child_process');
const { sampleCalls, samplesModule } = require('./samples.cjs');
const readme = require('./readme.cjs');
const { size } = require('./pack.cjs');
const { installLine, tarballName } = require('./mock/lib/index.js');

const ROOT = path.join(__dirname, '..');
const TOOLS = path.join(ROOT, 'tools', 'node_modules');
const WORK = path.join(ROOT, 'build', 'npm-test');
const APP = path.join(WORK, 'app');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const manifest = require('./mock/package.json');
const host = `${process.platform}-${process.arch}`;
const platformName = `${manifest.name}-${host}`;
// Flags every install here adds to what a team types: no network, a cache of its own.
const OFFLINE = (cache) => ['--offline', '--cache', cache, '--no-audit', '--no-fund'];

let env; // the environment every command below runs in: no Go on the PATH
const children = new Set();

// noGoPath is PATH without any directory holding a go binary; node, npm
// and npx stay reachable through links in WORK/node-bin.
function noGoPath() {
  const exe = process.platform === 'win32' ? 'go.exe' : 'go';
  const kept = (process.env.PATH || '').split(path.delimiter).filter((d) => d && !fs.existsSync(path.join(d, exe)));
  const shims = path.join(WORK, 'node-bin');
  fs.mkdirSync(shims, { recursive: true });
  const dirs = (process.env.PATH || '').split(path.delimiter).filter(Boolean);
  for (const tool of ['node', 'npm', 'npx']) {
    const found = tool === 'node' ? process.execPath : dirs.map((d) => path.join(d, tool)).find((f) => fs.existsSync(f));
    assert.ok(found, `${tool} is not on the PATH`);
    fs.symlinkSync(fs.realpathSync(found), path.join(shims, tool));
  }
  return [shims, ...kept].join(path.delimiter);
}

// npmInstall runs `npm i -D ...` as a team types it, in dir, with extra flags.
function npmInstall(line, dir, extra) {
  const [npm, ...args] = line.split(' ');
  assert.equal(npm, 'npm');
  return run(npm, [...args, ...extra], { cwd: dir });
}

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { cwd: APP, env, encoding: 'utf8', timeout: 120000, ...opts });
  return { code: res.status, out: res.stdout, err: res.stderr, error: res.error };
}

// freePort asks the system for a port and gives it back: Playwright's
// webServer needs the address before it starts the server.
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// portClosed polls (bounded) until nothing accepts on the port.
async function portClosed(port, timeoutMs = 15000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const open = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    });
    if (!open) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

// startMock runs the mock (`npx contractkit mock` unless cmd says otherwise)
// and resolves with the child and the address the mock printed. detached:
// the child leads a process group of its own, as Playwright starts a
// webServer and a terminal a job.
function startMock(args, { cmd = ['npx', 'contractkit'], detached = false, addr = '127.0.0.1:0' } = {}) {
  const child = spawn(cmd[0], [...cmd.slice(1), 'mock', '--addr', addr, ...args], { cwd: APP, env, detached });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let out = '';
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the mock did not start:\n' + out)), 30000);
    const read = (b) => {
      out += b;
      const m = out.match(/listening on (http:\/\/[0-9.:]+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ child, base: m[1], port: Number(new URL(m[1]).port), exited, output: () => out });
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => reject(new Error(`the mock exited (${code}):\n${out}`)));
  });
}

// linkTool links a package pinned in tools/ into the app: the few that do
// not come from the tarballs.
function linkTool(name) {
  const to = path.join(APP, 'node_modules', name);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  if (!fs.existsSync(to)) fs.symlinkSync(path.join(TOOLS, name), to);
}

function tsc(args) {
  return run(process.execPath, [path.join(TOOLS, 'typescript', 'bin', 'tsc'), '--noEmit', '--strict', '--target', 'es2022', ...args]);
}

let tarballs;
let packed; // what the packer printed

// emptyApp makes an app folder with only a package.json.
function emptyApp(dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, scripts: { dev: 'node app.cjs' } }, null, 2));
}

before(() => {
  fs.rmSync(WORK, { recursive: true, force: true });
  emptyApp(APP);
  env = { ...process.env, PATH: noGoPath(), CI: '1', PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' };
  for (const k of ['GOROOT', 'GOPATH', 'GOFLAGS', 'CONTRACTKIT_BINARY', 'MOCK_API_KEY', 'MOCK_OPEN_KEYS', 'MOCK_ADDR']) delete env[k];

  const out = path.join(WORK, 'tarballs');
  packed = execFileSync(process.execPath, [path.join(__dirname, 'pack.cjs'), '--platforms', host, '--reuse-build-cache', '--out', out],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  process.stderr.write(packed);
  tarballs = {
    dir: out,
    main: path.join(out, tarballName(manifest.name, manifest.version)),
    platform: path.join(out, tarballName(platformName, manifest.version)),
  };
  // The packer's last line, as the README says: the one install line.
  const line = packed.trimEnd().split('\n').at(-1);
  assert.equal(line, `npm i -D ${tarballs.main} ${tarballs.platform}`, `the packer's last line is not the install line:\n${packed}`);
  const res = npmInstall(line, APP, OFFLINE(path.join(WORK, 'npm-cache')));
  assert.equal(res.code, 0, `${line} failed:\n${res.out}\n${res.err}`);
});

after(() => {
  for (const c of children) c.kill('SIGKILL');
});

test('the tarballs hold what each package needs and nothing else', () => {
  const list = (file) => execFileSync('tar', ['-tzf', file], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
  assert.deepEqual(list(tarballs.main), ['package/README.md', 'package/bin/contractkit.js', 'package/lib/form.d.ts', 'package/lib/form.js',
    'package/lib/index.d.ts', 'package/lib/index.js', 'package/lib/install.js',
    'package/package.json', 'package/types/admin.d.ts', 'package/types/api.d.ts', 'package/types/index.d.ts']);
  const exe = process.platform === 'win32' ? 'contractkit.exe' : 'contractkit';
  assert.deepEqual(list(tarballs.platform), ['package/README.md', `package/bin/${exe}`, 'package/package.json']);

  const installed = (name) => JSON.parse(fs.readFileSync(path.join(APP, 'node_modules', name, 'package.json'), 'utf8'));
  const main = installed(manifest.name);
  const { platforms } = require('./mock/lib/index.js');
  assert.deepEqual(main.optionalDependencies, Object.fromEntries(platforms.map((p) => [`${manifest.name}-${p}`, manifest.version])),
    'every platform package, at the one version of npm/mock/package.json');
  assert.deepEqual(Object.keys(main.optionalDependencies).length, 6);
  const plat = installed(platformName);
  assert.equal(plat.version, manifest.version);
  assert.deepEqual([plat.os, plat.cpu], [[process.platform], [process.arch]]);
  assert.equal(main.scripts, undefined, 'nothing runs at install time');
  assert.equal(plat.scripts, undefined, 'nothing runs at install time');
});

test('the install stays small: one stripped binary, for this platform only', (t) => {
  const size = (dir) => fs.readdirSync(dir, { withFileTypes: true })
    .reduce((n, e) => n + (e.isDirectory() ? size(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).size), 0);
  const scope = path.join(APP, 'node_modules', manifest.name.split('/')[0]);
  assert.deepEqual(fs.readdirSync(scope).sort(), [manifest.name.split('/')[1], `${manifest.name.split('/')[1]}-${host}`],
    'npm installed the main package and this platform\'s, no other');
  const total = size(scope);
  const packed = fs.statSync(tarballs.main).size + fs.statSync(tarballs.platform).size;
  t.diagnostic(`installed ${(total / 1048576).toFixed(1)} MiB, downloaded ${(packed / 1048576).toFixed(1)} MiB`);
  assert.ok(total < 45 * 1048576, `the install is ${total} bytes: over 45 MiB`);
  assert.ok(packed < 16 * 1048576, `the tarballs are ${packed} bytes: over 16 MiB`);
});

test('npx contractkit runs both commands where there is no Go', () => {
  assert.notEqual(run('go', ['version']).code, 0, 'go must not be found on the PATH of this test');
  const version = run('npx', ['contractkit', '--version']);
  assert.equal(version.code, 0, version.err);
  assert.match(version.out, new RegExp(`^contractkit v${manifest.version.replace(/\./g, '\\.')}; contract v1 `));
  for (const [cmd, name] of [['mock', 'mockserver'], ['conformance', 'conformance']]) {
    const res = run('npx', ['contractkit', cmd, '--version']);
    assert.equal(res.code, 0, res.err);
    assert.ok(res.out.startsWith(`${name} v${manifest.version};`), res.out);
  }
  const usage = run('npx', ['contractkit', 'conformance', '--no-such-flag']);
  assert.equal(usage.code, 2, 'the binary\'s exit status passes through the launcher');
  const scoped = run('npx', [manifest.name, 'mock', '--version']);
  assert.equal(scoped.code, 0, `npx ${manifest.name} (the package's name) runs the same: ${scoped.err}`);
});

test('the README installs it before it is published with the line make npm prints', () => {
  // The README's line is the packer's, with a checkout's path and linux-x64 in it.
  const line = packed.trimEnd().split('\n').at(-1);
  const shown = line.replaceAll(tarballs.dir, '/path/to/contractkit/build/npm').replaceAll(host, 'linux-x64');
  const md = readme.block('npm-install');
  assert.ok(md.split('\n').includes(shown), `docs/frontend.md's npm-install block does not give the line make npm prints:\n  ${shown}\nblock:\n${md}`);
  assert.match(md, /^make npm\b/m, 'the block starts from make npm');
  assert.equal(line, installLine(tarballs.dir), 'the packer prints the package\'s own installLine');
});

// The packages' unpacked sizes: the sum of their files, as npm counts them.
function unpackedSize(file) {
  return execFileSync('tar', ['-tvzf', file], { encoding: 'utf8' }).split('\n').filter(Boolean)
    .reduce((n, l) => n + Number(l.trim().split(/\s+/)[2]), 0);
}

// This test's binary is linked with make build's settings (cgo as go env
// says, no -trimpath), the shipped one with cgo off and -trimpath: 0.2 %
// apart on linux-x64 (37,499,145 and 37,421,218 bytes, stripped). Within
// 2 %, the README's figures hold; the drift this catches was 7 %.
test('the README states the packages\' sizes as they are', (t) => {
  const claims = readme.sizes();
  const within = (what, claimed, bytes) => {
    const [n, unit] = claimed.split(' ');
    const stated = Number(n) * (unit === 'MB' ? 1e6 : 1e3);
    t.diagnostic(`${what}: README ${claimed}, built ${size(bytes)}`);
    assert.ok(Math.abs(stated - bytes) <= 0.02 * bytes, `docs/frontend.md says ${claimed} for ${what}; it is ${size(bytes)} (${bytes} bytes): update docs/frontend.md's "What is installed"`);
  };
  within('the main package installed', claims.main, unpackedSize(tarballs.main));
  if (host !== 'linux-x64') {
    t.diagnostic(`the README's platform figures are linux-x64's; this is ${host}`);
    return;
  }
  within('linux-x64 downloaded', claims.download, fs.statSync(tarballs.platform).size);
  within('linux-x64 on disk', claims.disk, unpackedSize(tarballs.platform));
});

// launcherSays runs npx contractkit where the platform package is missing
// and returns what it printed.
function launcherSays(dir) {
  const res = run('npx', ['contractkit', 'mock', '--version'], { cwd: dir });
  assert.equal(res.code, 1, `npx contractkit ran without its platform package:\n${res.out}${res.err}`);
  assert.ok(!fs.existsSync(path.join(dir, 'node_modules', platformName)), `${platformName} is installed`);
  assert.match(res.err, new RegExp(`^contractkit: ${platformName.replace('/', '\\/')}, which holds the binary for ${host}, is not installed`));
  return res.err;
}

test('installed from its tarball alone, the launcher says so and gives the line that installs both', () => {
  const dir = path.join(WORK, 'alone');
  emptyApp(dir);
  const res = run('npm', ['i', '-D', tarballs.main, ...OFFLINE(path.join(WORK, 'npm-cache'))], { cwd: dir });
  assert.equal(res.code, 0, res.err);
  const said = launcherSays(dir);
  assert.match(said, /Cause: @contractkit\/mock was installed from its tarball alone/, said);
  assert.ok(said.includes(`Fix: install the main tarball and this platform's together, the line \`make npm\` prints: ${installLine(tarballs.dir)}`), said);
});

// startRegistry runs npm/registry.cjs for the tarballs and resolves with
// its address.
function startRegistry(files) {
  const child = spawn(process.execPath, [path.join(__dirname, 'registry.cjs'), ...files], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b) => {
      out += b;
      if (out.includes('\n')) resolve({ child, url: out.trim() });
    });
    child.on('exit', (code) => reject(new Error(`npm/registry.cjs exited (${code})`)));
  });
}

test('installed by name with optional dependencies omitted, the launcher says so; its fix installs the binary', async () => {
  const reg = await startRegistry([tarballs.main, tarballs.platform]);
  try {
    const dir = path.join(WORK, 'omitted');
    emptyApp(dir);
    const flags = ['--registry', reg.url, '--cache', path.join(WORK, 'registry-cache'), '--no-audit', '--no-fund'];
    const res = run('npm', ['i', '-D', manifest.name, '--omit=optional', ...flags], { cwd: dir });
    assert.equal(res.code, 0, res.err);
    const said = launcherSays(dir);
    assert.match(said, /Cause: optional dependencies were left out \(npm install --omit=optional/, said);
    const fix = said.match(/Fix: install them: (npm i --include=optional)$/m);
    assert.ok(fix, said);
    const fixed = run('npm', [...fix[1].split(' ').slice(1), ...flags], { cwd: dir });
    assert.equal(fixed.code, 0, fixed.err);
    const version = run('npx', ['contractkit', '--version'], { cwd: dir });
    assert.equal(version.code, 0, `after ${fix[1]}: ${version.err}`);
    // From a registry, as after publishing: this platform's package only.
    assert.deepEqual(fs.readdirSync(path.join(dir, 'node_modules', '@contractkit')).sort(), ['mock', `mock-${host}`]);
  } finally {
    reg.child.kill('SIGKILL');
  }
});

// docs/frontend.md's typed blocks, compiled in one run against the installed
// package as a Vite app resolves (bundler): the npm-types block's typo
// through openapi-fetch alone compiles, and with `satisfies` it is an error
// (its @ts-expect-error fails tsc if not); the npm-upload block, a File as
// a file part, compiles, and its output is run against the mock.
test('docs/frontend.md\'s typed blocks compile as it says, and its upload reaches the mock through formData', async () => {
  for (const claim of readme.tscClaims()) {
    assert.match(claim, /satisfies/, `docs/frontend.md says a typo fails tsc without saying it takes \`satisfies\` (through openapi-fetch alone it compiles):\n${claim}`);
  }
  // openapi-fetch, pinned in tools/: the client the README pairs the types with.
  linkTool('openapi-fetch');
  const mock = await startMock(['--log-level', 'warn'], { detached: true });
  try {
    fs.writeFileSync(path.join(APP, 'readme-types.ts'), readme.block('npm-types'));
    // The upload as written, but for the address: this mock's (it runs with the README's development key).
    fs.writeFileSync(path.join(APP, 'upload.mts'), readme.block('npm-upload').replaceAll('http://127.0.0.1:8080', mock.base));
    const typed = run(process.execPath, [path.join(TOOLS, 'typescript', 'bin', 'tsc'), '--strict', '--target', 'es2022',
      '--module', 'esnext', '--moduleResolution', 'bundler', '--outDir', 'out', 'readme-types.ts', 'upload.mts']);
    assert.equal(typed.code, 0, `docs/frontend.md's npm-types and npm-upload blocks do not compile as it says:\n${typed.out}${typed.err}`);

    const sent = run(process.execPath, [path.join('out', 'upload.mjs')]);
    assert.equal(sent.code, 0, `the README's upload failed:\n${sent.out}${sent.err}`);
    const [id, files] = sent.out.trim().split(' ');
    assert.equal(files, '1', `the README's upload printed ${sent.out}`);
    const key = { headers: { Authorization: 'Bearer dev-key-change-me' } };
    const { data } = await (await fetch(`${mock.base}/api/v1/user/dataset/${id}`, key)).json();
    assert.equal(data.name, 'Handbook');
    const [call] = (await (await fetch(`${mock.base}/admin/requests?method=POST&path=/api/v1/user/dataset`, key)).json()).data;
    assert.match(call.request.headers['Content-Type'][0], /^multipart\/form-data; boundary=/, 'formData sent a form, with the boundary fetch chose');
    assert.match(call.request.body, /leave\.md/, 'the file part went out under its name');
  } finally {
    process.kill(-mock.child.pid, 'SIGTERM');
    await mock.exited;
  }
});

test('the /admin types the package ships match what the mock answers', async () => {
  const mock = await startMock(['--open-keys', 'types-*', '--train-duration', '0', '--token-interval', '1ms', '--log-level', 'warn'], { detached: true });
  const answers = await sampleCalls(mock.base, 'types-1');
  fs.writeFileSync(path.join(APP, 'admin-answers.ts'), samplesModule(answers, manifest.name));
  // nodenext: as Node and TypeScript resolve an installed package's exports.
  const res = tsc(['--module', 'nodenext', '--moduleResolution', 'nodenext', 'admin-answers.ts']);
  assert.equal(res.code, 0, `the mock's real /admin answers do not compile against ${manifest.name}/types:\n${res.out}${res.err}`);

  // SIGTERM to npx's process group (a terminal, a CI runner, Playwright's
  // gracefulShutdown) reaches the binary through the launcher: it stops.
  process.kill(-mock.child.pid, 'SIGTERM');
  const { code, signal } = await mock.exited;
  assert.ok(code === 0 || signal === 'SIGTERM', `npx ended with ${code} ${signal}:\n${mock.output()}`);
  assert.ok(await portClosed(mock.port), 'the mock still listens after SIGTERM to its process group');
});

// The binary's process group, read from /proc (Linux).
function pgid(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

test('the launcher passes each signal on once, and the binary never outlives it', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const launcher = ['node', path.join(APP, 'node_modules', '.bin', 'contractkit')];
  // SIGINT to the launcher alone (no terminal): passed on, a graceful stop.
  const a = await startMock(['--log-level', 'info'], { cmd: launcher });
  const kids = fs.readFileSync(`/proc/${a.child.pid}/task/${a.child.pid}/children`, 'utf8').trim().split(' ').map(Number);
  assert.equal(kids.length, 1, 'the launcher runs one process, the binary');
  assert.notEqual(pgid(kids[0]), pgid(a.child.pid), 'the binary has a process group of its own: a signal to the launcher\'s group reaches it once, through the launcher');
  a.child.kill('SIGINT');
  const ended = await a.exited;
  assert.deepEqual(ended, { code: 0, signal: null }, a.output());
  assert.match(a.output(), /msg=stopped/, 'the mock stopped gracefully');
  assert.ok(await portClosed(a.port));

  // The launcher killed outright (Playwright's default for a webServer):
  // the binary sees its pipe close and stops as on SIGTERM.
  const b = await startMock(['--log-level', 'info'], { cmd: launcher });
  b.child.kill('SIGKILL');
  await b.exited;
  assert.ok(await portClosed(b.port), 'the binary outlived a launcher killed with SIGKILL');
});

// The app under test, what `npm run dev` starts here: its model page reads
// one model from the mock (at VITE_API_BASE, as the recipe's webServer
// sets it: the mock's origin, the path /api/v1/... as the types have it)
// with the app's own key, which the mock does not know: only the recipe's
// routing gives its calls the worker's key.
const APP_SERVER = `'use strict';
const http = require('node:http');
const api = process.env.VITE_API_BASE;
if (!api) throw new Error('VITE_API_BASE is not set: the recipe\\'s webServer sets it');
if (new URL(api).pathname !== '/') throw new Error('VITE_API_BASE is ' + api + ': one base, the mock\\'s origin (the types\\' paths carry /api/v1)');
const page = \`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Model</title></head><body><main id="model">loading</main>
<script>
(async () => {
  const id = location.pathname.split('/').pop();
  const resp = await fetch(\${JSON.stringify(api.replace(/\\/$/, ''))} + '/api/v1/user/model/' + encodeURIComponent(id), { headers: { Authorization: 'Bearer the-apps-own-key' } });
  const body = await resp.json();
  document.getElementById('model').textContent = resp.ok ? body.data.name + ' (' + body.data.status + ')' : body.message;
})();
</script></body></html>\`;
const url = new URL(process.env.APP_URL);
http.createServer((req, res) => {
  if (req.url === '/' || /^\\/models\\/[0-9]+$/.test(req.url)) {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
  } else {
    res.writeHead(404).end();
  }
}).listen(Number(url.port), url.hostname);
`;

// busyLoops keeps the cores busy beside a run, at a lower priority (nice),
// as a loaded machine does; each loop ends by itself after limitMs.
function busyLoops(n, limitMs) {
  const loops = Array.from({ length: n }, () => spawn('nice', ['-n', '10', process.execPath, '-e',
    `const end = Date.now() + ${limitMs}; while (Date.now() < end);`], { stdio: 'ignore' }));
  for (const l of loops) children.add(l);
  return () => loops.forEach((l) => l.kill('SIGKILL'));
}

// Four workers on 2 cores beside two busy loops: a recipe that raced the
// mock's clock (a 2 s training a test looked for) failed 2 tests in 15
// here; the recipe's durations of an hour and /admin/advance cannot.
const WORKERS = 4;
const REPEAT = 2;

// playwright runs the README's recipe under @playwright/test's runner, with
// the README's config around Debian's Chromium, and resolves with its exit
// code and output.
async function playwright(args, runEnv) {
  const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'];
  fs.writeFileSync(path.join(APP, 'ci.config.ts'), `import config from './playwright.config';
export default { ...config, reporter: 'list', use: { ...config.use,
  launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)}, args: ${JSON.stringify(flags)} } } };
`);
  const cli = path.join(APP, 'node_modules', '@playwright', 'test', 'cli.js');
  const child = spawn(process.execPath, [cli, 'test', '-c', 'ci.config.ts', ...args], { cwd: APP, env: runEnv });
  children.add(child);
  let out = '';
  child.stdout.on('data', (b) => { out += b; });
  child.stderr.on('data', (b) => { out += b; });
  const timer = setTimeout(() => child.kill('SIGKILL'), 240000);
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, out, summary: out.split('\n').filter((l) => /passed|failed|flaky|Running/.test(l)).join(' | ') };
}

let recipeTests = 0; // how many tests the README's recipe has, once it ran

test('the README\'s Playwright recipe type-checks and runs as written, four workers beside busy loops', async (t) => {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (or set CHROMIUM)`);
  const files = readme.recipe();
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(APP, name)), { recursive: true });
    fs.writeFileSync(path.join(APP, name), text);
  }
  fs.writeFileSync(path.join(APP, 'app.cjs'), APP_SERVER);
  // @playwright/test, pinned in tools/: it downloads no browser here.
  linkTool('@playwright/test');

  // bundler: as a Vite app's tsconfig resolves.
  const typed = tsc(['--module', 'esnext', '--moduleResolution', 'bundler', '--types', 'node', '--typeRoots', path.join(TOOLS, '@types'),
    ...Object.keys(files)]);
  assert.equal(typed.code, 0, `the README's recipe does not type-check:\n${typed.out}${typed.err}`);

  const mockPort = await freePort();
  const appPort = await freePort();
  const stopLoad = busyLoops(2, 300000);
  const { code, out, summary } = await playwright(['--workers', String(WORKERS), '--repeat-each', String(REPEAT)],
    { ...env, MOCK_URL: `http://127.0.0.1:${mockPort}`, APP_URL: `http://127.0.0.1:${appPort}` });
  stopLoad();
  t.diagnostic(summary);
  assert.equal(code, 0, `npx playwright test failed:\n${out}`);
  const tests = [...Object.values(files).join('\n').matchAll(/^test\(/gm)].length;
  assert.equal(tests, 4, 'the README\'s recipe has four tests (e2e/model-page.spec.ts and e2e/models.spec.ts)');
  assert.match(out, new RegExp(`Running ${tests * REPEAT} tests using ${WORKERS} workers`), out);
  assert.match(out, new RegExp(`\\b${tests * REPEAT} passed`), out);
  assert.ok(await portClosed(mockPort), 'the mock Playwright started through npx still listens after the run');
  recipeTests = tests;
});

// Locally (CI unset) the recipe reuses a mock already listening, such as
// one an earlier run left behind when Playwright was stopped with SIGTERM:
// its worker accounts hold what that run did. Here every worker's account
// has lost its models, its clock is a day on and an override answers 503:
// the fixture's reset at each worker's start makes it as good as a fresh one.
test('a mock an earlier run left behind is reused as good as a fresh one: each worker resets its account', async (t) => {
  assert.ok(recipeTests > 0, 'the recipe ran first');
  const mockPort = await freePort();
  const appPort = await freePort();
  // The README's command for a mock Playwright reuses locally.
  const mock = await startMock(['--open-keys', 'test-*', '--train-duration', '1h', '--eval-duration', '1h', '--log-level', 'warn'],
    { detached: true, addr: `127.0.0.1:${mockPort}` });
  try {
    for (let i = 0; i < WORKERS; i++) {
      const call = async (method, p, body) => {
        const resp = await fetch(mock.base + p, {
          method, headers: { Authorization: `Bearer test-${i}`, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body),
        });
        const text = await resp.text();
        assert.equal(resp.status, 200, `${method} ${p}: ${text}`);
        return JSON.parse(text).data;
      };
      for (const m of await call('GET', '/api/v1/user/model')) await call('DELETE', `/api/v1/user/model/${m.id}`);
      await call('POST', '/admin/advance?by=24h');
      await call('POST', '/admin/overrides', { match: { method: 'GET', path: '/api/v1/user/model' }, respond: { status: 503 } });
    }
    const runEnv = { ...env, MOCK_URL: mock.base, APP_URL: `http://127.0.0.1:${appPort}` };
    delete runEnv.CI; // reuseExistingServer: !process.env.CI
    const { code, out, summary } = await playwright(['--workers', String(WORKERS)], runEnv);
    t.diagnostic(summary);
    assert.equal(code, 0, `npx playwright test against a reused mock failed:\n${out}`);
    assert.match(out, new RegExp(`\\b${recipeTests} passed`), out);
    const health = await fetch(`${mock.base}/healthz`);
    assert.equal(health.status, 200, 'Playwright reused the mock, and left it running');
  } finally {
    process.kill(-mock.child.pid, 'SIGTERM');
    await mock.exited;
  }
});
