'use strict';
// How the package is installed before it is published (the main tarball and
// this platform's, together), and why this platform's package is missing
// when it is, read from what npm left behind: the lockfiles. The launcher
// says the cause it finds and the fix for it; `make npm` (npm/pack.cjs)
// prints the same install line.
const fs = require('node:fs');
const path = require('node:path');

/** The file `npm pack` writes for a package: "@contractkit/mock", "0.1.0" → "contractkit-mock-0.1.0.tgz". */
function tarballName(name, version) {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

// A path as a shell word.
function shellWord(s) {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The one line that installs the main package and a platform's from the tarballs in dir. */
function installCommand(dir, name, platformName, version) {
  const files = [tarballName(name, version), tarballName(platformName, version)].map((f) => shellWord(path.join(path.resolve(dir), f)));
  return `npm i -D ${files.join(' ')}`;
}

function readJSON(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

// entry is the lockfile record of the package installed at node_modules/name
// (hoisted or nested), if the lockfile has one.
function entry(lock, name) {
  const key = Object.keys(lock?.packages ?? {}).find((k) => k === `node_modules/${name}` || k.endsWith(`/node_modules/${name}`));
  return key === undefined ? undefined : lock.packages[key];
}

/**
 * Why the platform package is not installed, and the fix: a sentence for
 * each. main is this package ({ name, version, dir }: dir its folder in
 * node_modules), platformName the package that holds this machine's binary.
 *
 * - Optional dependencies omitted (--omit=optional, --no-optional, or
 *   omit=optional in an .npmrc or NPM_CONFIG_OMIT): the app's lockfile
 *   names the platform package, node_modules does not hold it.
 * - Installed from its tarball alone: the main package's `resolved` is a
 *   file: tarball, and npm, finding no platform package on the registry
 *   (none is published yet), skipped it as optional.
 * - Otherwise both are possible; a lockfile written without the package
 *   (npm/cli#4828) is a third.
 */
function whyMissing(main, platformName) {
  const nodeModules = path.resolve(main.dir, ...main.name.split('/').map(() => '..'));
  const root = path.dirname(nodeModules);
  const lock = readJSON(path.join(root, 'package-lock.json')) ?? readJSON(path.join(root, 'npm-shrinkwrap.json'));
  const hidden = readJSON(path.join(nodeModules, '.package-lock.json'));
  const omitted = 'optional dependencies were left out (npm install --omit=optional or --no-optional, or omit=optional ' +
    'in an .npmrc or NPM_CONFIG_OMIT), and the binary comes as one';
  const includeFix = 'install them: npm i --include=optional';

  if (entry(lock, platformName)) {
    return { cause: `${omitted}: package-lock.json names ${platformName}, node_modules does not hold it`, fix: includeFix };
  }
  const resolved = (entry(hidden, main.name) ?? entry(lock, main.name))?.resolved ?? '';
  if (resolved.startsWith('file:') && resolved.endsWith('.tgz')) {
    const from = path.resolve(root, resolved.slice('file:'.length));
    const dir = path.dirname(from);
    const have = fs.existsSync(path.join(dir, tarballName(platformName, main.version)));
    return {
      cause: `${main.name} was installed from its tarball alone (${from}): npm looked for ${platformName} ` +
        'on the registry, where it is not (yet), and skipped it as an optional dependency',
      fix: `install the main tarball and this platform's together, the line \`make npm\` prints${have ? '' : ' (it builds both)'}: ` +
        installCommand(dir, main.name, platformName, main.version),
    };
  }
  return {
    cause: `npm did not install it: either ${omitted}, or the lockfile was written without it (npm/cli#4828)`,
    fix: `${includeFix}; if it is still missing, remove node_modules and package-lock.json and run npm i again`,
  };
}

module.exports = { tarballName, installCommand, whyMissing };
