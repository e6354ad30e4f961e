// make npm-test: the npm package as a frontend team gets it. This machine's
// packages are packed (npm/pack.cjs --platforms host), installed from their
// tarballs into an empty folder with no Go on the PATH and no network
// (npm --offline, an empty cache), and used there: `npx contractkit` runs
// both commands, the mock's real /admin answers compile against the /admin
// types the package ships (and every field of those types shows up in one),
// and the README's Playwright recipe (read from README.md between the
// npm-recipe markers) type-checks and runs as written, its webServer
// starting the mock through npx. Only the browser differs from a
// developer's machine: Debian's Chromium, named in a config around the
// README's.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { execFileSync, spawn, spawnSync } = require('node:child_process');
const { sampleCalls, samplesModule } = require('./samples.cjs');

const ROOT = path.join(__dirname, '..');
const TOOLS = path.join(ROOT, 'tools', 'node_modules');
const WORK = path.join(ROOT, 'build', 'npm-test');
const APP = path.join(WORK, 'app');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const manifest = require('./mock/package.json');
const host = `${process.platform}-${process.arch}`;
const platformName = `${manifest.name}-${host}`;

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
function startMock(args, { cmd = ['npx', 'contractkit'], detached = false } = {}) {
  const child = spawn(cmd[0], [...cmd.slice(1), 'mock', '--addr', '127.0.0.1:0', ...args], { cwd: APP, env, detached });
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

function tsc(args) {
  return run(process.execPath, [path.join(TOOLS, 'typescript', 'bin', 'tsc'), '--noEmit', '--strict', '--target', 'es2022', ...args]);
}

let tarballs;

before(() => {
  fs.rmSync(WORK, { recursive: true, force: true });
  fs.mkdirSync(APP, { recursive: true });
  env = { ...process.env, PATH: noGoPath(), CI: '1', PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' };
  for (const k of ['GOROOT', 'GOPATH', 'GOFLAGS', 'CONTRACTKIT_BINARY', 'MOCK_API_KEY', 'MOCK_OPEN_KEYS', 'MOCK_ADDR']) delete env[k];

  const out = path.join(WORK, 'tarballs');
  execFileSync(process.execPath, [path.join(__dirname, 'pack.cjs'), '--platforms', host, '--reuse-build-cache', '--out', out], { stdio: 'inherit' });
  tarballs = {
    main: path.join(out, `${manifest.name.slice(1).replace('/', '-')}-${manifest.version}.tgz`),
    platform: path.join(out, `${platformName.slice(1).replace('/', '-')}-${manifest.version}.tgz`),
  };
  fs.writeFileSync(path.join(APP, 'package.json'), JSON.stringify({ name: 'app', private: true, scripts: { dev: 'node app.cjs' } }, null, 2));
  const res = run('npm', ['install', '--offline', '--cache', path.join(WORK, 'npm-cache'), '--no-audit', '--no-fund',
    '--save-dev', tarballs.main, tarballs.platform]);
  assert.equal(res.code, 0, `npm install failed:\n${res.out}\n${res.err}`);
});

after(() => {
  for (const c of children) c.kill('SIGKILL');
});

test('the tarballs hold what each package needs and nothing else', () => {
  const list = (file) => execFileSync('tar', ['-tzf', file], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
  assert.deepEqual(list(tarballs.main), ['package/README.md', 'package/bin/contractkit.js', 'package/lib/index.d.ts', 'package/lib/index.js',
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

test('without its platform package the launcher says what to do', () => {
  const dir = path.join(APP, 'node_modules', platformName);
  fs.renameSync(dir, dir + '.away');
  try {
    const res = run('npx', ['contractkit', 'mock', '--version']);
    assert.equal(res.code, 1);
    assert.match(res.err, new RegExp(`contractkit: ${platformName.replace('/', '\\/')} is not installed.*--omit=optional`, 's'));
  } finally {
    fs.renameSync(dir + '.away', dir);
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

// readmeRecipe is the npm section's files (every fenced block between
// <!-- npm-recipe:start FILE --> and <!-- npm-recipe:end -->) with the
// worker fixture and the test of "End-to-end tests with Playwright"
// (e2e-fixture and e2e-example markers), by file.
function readmeRecipe() {
  const md = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const files = {};
  const re = /<!-- npm-recipe:start ([\w./-]+) -->\s*```\w*\n([\s\S]*?)```\s*<!-- npm-recipe:end -->/g;
  for (const m of md.matchAll(re)) files[m[1]] = m[2];
  assert.deepEqual(Object.keys(files).sort(), ['e2e/models.spec.ts', 'playwright.config.ts'],
    'README.md\'s npm section gives playwright.config.ts and e2e/models.spec.ts between npm-recipe markers');
  for (const [marker, file] of [['e2e-fixture', 'e2e/mock.ts'], ['e2e-example', 'e2e/model-page.spec.ts']]) {
    const m = md.match(new RegExp(`<!-- ${marker}:start -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${marker}:end -->`));
    assert.ok(m, `README.md has no block between <!-- ${marker}:start --> and <!-- ${marker}:end -->`);
    files[file] = m[1];
  }
  return files;
}

// The app under test, what `npm run dev` starts here: its model page reads
// one model from the mock (at VITE_API_BASE, as the recipe's webServer
// sets it) with the app's own key, which the mock does not know: only the
// recipe's routing gives its calls the worker's key.
const APP_SERVER = `'use strict';
const http = require('node:http');
const api = process.env.VITE_API_BASE;
if (!api) throw new Error('VITE_API_BASE is not set: the recipe\\'s webServer sets it');
const page = \`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Model</title></head><body><main id="model">loading</main>
<script>
(async () => {
  const id = location.pathname.split('/').pop();
  const resp = await fetch(\${JSON.stringify(api)} + '/user/model/' + encodeURIComponent(id), { headers: { Authorization: 'Bearer the-apps-own-key' } });
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

test('the README\'s Playwright recipe type-checks and runs as written, workers in parallel', async (t) => {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (or set CHROMIUM)`);
  const files = readmeRecipe();
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(APP, name)), { recursive: true });
    fs.writeFileSync(path.join(APP, name), text);
  }
  fs.writeFileSync(path.join(APP, 'app.cjs'), APP_SERVER);
  // @playwright/test, pinned in tools/: the one package not from the tarballs.
  fs.mkdirSync(path.join(APP, 'node_modules', '@playwright'), { recursive: true });
  const pw = path.join(APP, 'node_modules', '@playwright', 'test');
  if (!fs.existsSync(pw)) fs.symlinkSync(path.join(TOOLS, '@playwright', 'test'), pw);

  // bundler: as a Vite app's tsconfig resolves.
  const typed = tsc(['--module', 'esnext', '--moduleResolution', 'bundler', '--types', 'node', '--typeRoots', path.join(TOOLS, '@types'),
    ...Object.keys(files)]);
  assert.equal(typed.code, 0, `the README's recipe does not type-check:\n${typed.out}${typed.err}`);

  const mockPort = await freePort();
  const appPort = await freePort();
  // The README's config, with Debian's Chromium instead of a downloaded one.
  fs.writeFileSync(path.join(APP, 'ci.config.ts'), `import config from './playwright.config';
export default { ...config, reporter: 'list', use: { ...config.use,
  launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)}, args: ['--no-sandbox'] } } };
`);
  const child = spawn(process.execPath, [path.join(pw, 'cli.js'), 'test', '-c', 'ci.config.ts', '--workers', '2', '--repeat-each', '3'], {
    cwd: APP, env: { ...env, MOCK_URL: `http://127.0.0.1:${mockPort}`, APP_URL: `http://127.0.0.1:${appPort}` },
  });
  children.add(child);
  let out = '';
  child.stdout.on('data', (b) => { out += b; });
  child.stderr.on('data', (b) => { out += b; });
  const timer = setTimeout(() => child.kill('SIGKILL'), 240000);
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  t.diagnostic(out.split('\n').filter((l) => /passed|failed|flaky/.test(l)).join(' | '));
  assert.equal(code, 0, `npx playwright test failed:\n${out}`);
  assert.match(out, /9 passed/, out); // three tests, three times each
  assert.ok(await portClosed(mockPort), 'the mock Playwright started through npx still listens after the run');
});
