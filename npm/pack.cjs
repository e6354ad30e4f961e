#!/usr/bin/env node
'use strict';
// make npm: the npm packages of the kit, as tarballs ready for `npm publish`.
//
//   node npm/pack.cjs [--platforms all|host|linux-x64,darwin-arm64,...] [--out build/npm] [--reuse-build-cache]
//
// The main package (npm/mock: the launcher, the types) lists one package
// per platform as an optional dependency; each platform package holds the
// contractkit binary (cmd/contractkit: the mock and the suite) for its "os"
// and "cpu". The version is the main package's, npm/mock/package.json: the
// platform packages, the optional dependencies and the binary's --version
// all take it from there.
//
// A binary is cross-compiled with cgo off (static: it runs on glibc and musl
// alike), -trimpath, and stripped (-s -w). --reuse-build-cache builds with
// the compile settings of `make build` instead (cgo as `go env` says, no
// -trimpath), so that only the link is new: the test that installs the
// host's package (npm/package.test.cjs) stays cheap in `make test`.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const MAIN_DIR = path.join(__dirname, 'mock');
const { platforms, binaryName, installLine } = require('./mock/lib/index.js');

// Node's names of a platform, Go's.
const GOOS = { linux: 'linux', darwin: 'darwin', win32: 'windows' };
const GOARCH = { x64: 'amd64', arm64: 'arm64' };

function parseArgs(argv) {
  const opts = { platforms: 'all', out: path.join(ROOT, 'build', 'npm'), reuseBuildCache: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--platforms' || a === '--out') {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      opts[a.slice(2)] = argv[++i];
    } else if (a === '--reuse-build-cache') {
      opts.reuseBuildCache = true;
    } else {
      throw new Error(`unknown argument ${a} (usage: node npm/pack.cjs [--platforms all|host|LIST] [--out DIR] [--reuse-build-cache])`);
    }
  }
  return opts;
}

// selected reads --platforms: all, host (this machine), or a list.
function selected(spec) {
  if (spec === 'all') return [...platforms];
  const host = `${process.platform}-${process.arch}`;
  const list = spec.split(',').map((s) => (s.trim() === 'host' ? host : s.trim())).filter(Boolean);
  for (const p of list) {
    if (!platforms.includes(p)) throw new Error(`no such platform ${p} (platforms: ${platforms.join(', ')})`);
  }
  return [...new Set(list)];
}

function readJSON(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function writeJSON(file, value) {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

// mainManifest is npm/mock/package.json with every platform package as an
// optional dependency, at the package's own version.
function mainManifest() {
  const m = readJSON(path.join(MAIN_DIR, 'package.json'));
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(m.version)) throw new Error(`npm/mock/package.json: version ${m.version} is not semver`);
  m.optionalDependencies = Object.fromEntries(platforms.map((p) => [`${m.name}-${p}`, m.version]));
  return m;
}

function platformManifest(main, platform) {
  const [os, cpu] = platform.split('-');
  return {
    name: `${main.name}-${platform}`,
    version: main.version,
    description: `The contractkit binary (the mock and the conformance suite) for ${os} ${cpu}: install ${main.name}, which installs this package on ${platform}.`,
    license: main.license,
    os: [os],
    cpu: [cpu],
    files: ['bin/'],
    preferUnplugged: true,
  };
}

// build compiles cmd/contractkit for a platform into file.
function build(platform, file, version, reuseBuildCache) {
  const [os, cpu] = platform.split('-');
  const env = { ...process.env, GOOS: GOOS[os], GOARCH: GOARCH[cpu] };
  const args = ['build'];
  if (!reuseBuildCache) {
    env.CGO_ENABLED = '0';
    args.push('-trimpath');
  }
  args.push('-ldflags', `-s -w -X contractkit/internal/version.Version=v${version}`, '-o', file, './cmd/contractkit');
  execFileSync('go', args, { cwd: ROOT, env, stdio: 'inherit' });
  if (!reuseBuildCache) checkBuild(file);
}

// checkBuild reads the build settings Go records in the binary, and its
// symbols: a shipped binary is static, trimmed and stripped. (Go records no
// -ldflags under -trimpath, so the symbols are looked at instead: a
// stripped binary has none, or on macOS only the system calls it imports,
// never Go's own such as runtime.main.)
function checkBuild(file) {
  const info = execFileSync('go', ['version', '-m', file], { encoding: 'utf8' });
  for (const want of ['CGO_ENABLED=0', '-trimpath=true']) {
    if (!info.includes(`build\t${want}`)) throw new Error(`${file} was not built with ${want}:\n${info}`);
  }
  let symbols = '';
  try {
    symbols = execFileSync('go', ['tool', 'nm', file], { encoding: 'utf8', maxBuffer: 512 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    // "no symbols": stripped
  }
  if (/\sruntime\.main$/m.test(symbols)) throw new Error(`${file} has Go's symbols: it was not linked with -s -w`);
}

// pack runs npm pack on a staged package directory and returns the tarball's path.
function pack(dir, out) {
  const res = execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: dir, encoding: 'utf8' });
  const [{ filename, size, unpackedSize }] = JSON.parse(res);
  return { file: path.join(out, filename), size, unpackedSize };
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const list = selected(opts.platforms);
  const out = path.resolve(opts.out);
  const stage = path.join(out, 'stage');
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  for (const f of fs.readdirSync(out)) if (f.endsWith('.tgz')) fs.rmSync(path.join(out, f));

  const manifest = mainManifest();
  const mainStage = path.join(stage, 'mock');
  fs.cpSync(MAIN_DIR, mainStage, { recursive: true });
  writeJSON(path.join(mainStage, 'package.json'), manifest);
  const packed = [pack(mainStage, out)];

  for (const platform of list) {
    const dir = path.join(stage, platform);
    fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
    const m = platformManifest(manifest, platform);
    writeJSON(path.join(dir, 'package.json'), m);
    fs.writeFileSync(path.join(dir, 'README.md'), `# ${m.name}\n\n${m.description}\n`);
    process.stderr.write(`npm: building ${m.name}\n`);
    build(platform, path.join(dir, 'bin', binaryName(platform.split('-')[0])), manifest.version, opts.reuseBuildCache);
    packed.push(pack(dir, out));
  }
  fs.rmSync(stage, { recursive: true, force: true });
  for (const p of packed) console.log(`${path.relative(process.cwd(), p.file)}\t${size(p.size)} packed\t${size(p.unpackedSize)} installed`);
  // Last, the line a team runs in its app before the packages are
  // published: the main tarball alone would leave the binary out (npm finds
  // no platform package on the registry and skips it as optional).
  const host = `${process.platform}-${process.arch}`;
  if (list.includes(host)) {
    console.log(`\nTo install them in an app before they are published (this machine, ${host}):\n${installLine(out)}`);
  } else {
    console.log(`\nNo package for this machine (${host}) was built: install the main tarball with its platform's, together.`);
  }
}

// size is a size as npm prints it (decimal units: 1 kB = 1000 bytes), and
// as docs/frontend.md states the packages' sizes (npm/package.test.cjs holds the
// guide to it).
function size(n) {
  return n < 1e6 ? `${(n / 1e3).toFixed(0)} kB` : `${(n / 1e6).toFixed(1)} MB`;
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    process.stderr.write(`npm/pack.cjs: ${err.message}\n`);
    process.exit(1);
  }
}

module.exports = { mainManifest, platformManifest, selected, size };
