'use strict';
// Where this machine's contractkit binary is. The binary ships in one
// package per platform (@contractkit/mock-linux-x64, ...), each listed as an
// optional dependency of this one with its "os" and "cpu": npm installs
// only the one that fits the machine, as it does for esbuild and Biome.
// Nothing runs at install time.
const path = require('node:path');
const manifest = require('../package.json');
const { tarballName, installCommand, whyMissing } = require('./install.js');

/** The platforms a binary is published for, as Node names them (process.platform-process.arch). */
const platforms = Object.freeze(['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64']);

/** The package holding the binary for a platform: @contractkit/mock-linux-x64. */
function platformPackage(platform = process.platform, arch = process.arch) {
  return `${manifest.name}-${platform}-${arch}`;
}

/** The binary's file name on a platform. */
function binaryName(platform = process.platform) {
  return platform === 'win32' ? 'contractkit.exe' : 'contractkit';
}

/**
 * The path of this machine's contractkit binary: CONTRACTKIT_BINARY when
 * set (a binary built from source: go build ./cmd/contractkit), else the one
 * in the platform package npm installed. Throws an Error that says what to
 * do when there is none.
 */
function binaryPath() {
  const own = process.env.CONTRACTKIT_BINARY;
  if (own) return path.resolve(own);
  const key = `${process.platform}-${process.arch}`;
  if (!platforms.includes(key)) {
    throw new Error(`no binary is published for ${key} (only ${platforms.join(', ')}): ` +
      'build one from the repository (go build ./cmd/contractkit) and set CONTRACTKIT_BINARY to its path');
  }
  const pkg = platformPackage();
  let file;
  let found;
  try {
    file = require.resolve(`${pkg}/bin/${binaryName()}`);
    found = require(`${pkg}/package.json`).version;
  } catch {
    // npm installs it with this package, as an optional dependency for
    // this platform; what kept it out is in npm's lockfiles.
    const { cause, fix } = whyMissing({ name: manifest.name, version: manifest.version, dir: path.join(__dirname, '..') }, pkg);
    throw new Error(`${pkg}, which holds the binary for ${key}, is not installed.\n  Cause: ${cause}.\n  Fix: ${fix}`);
  }
  if (found !== manifest.version) {
    throw new Error(`${pkg} is version ${found}, ${manifest.name} is ${manifest.version}: install both at the same version`);
  }
  return file;
}

/**
 * The one line that installs this package and a platform's from the
 * tarballs `make npm` wrote into dir (this machine's platform by default).
 */
function installLine(dir, platform = process.platform, arch = process.arch) {
  return installCommand(dir, manifest.name, platformPackage(platform, arch), manifest.version);
}

module.exports = { binaryPath, platformPackage, binaryName, installLine, tarballName, platforms, version: manifest.version };
