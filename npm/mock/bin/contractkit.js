#!/usr/bin/env node
'use strict';
// contractkit: runs this platform's binary with the same arguments
// (`contractkit mock [flags]`, `contractkit conformance [flags]`), the same
// standard streams and environment, and exits as it exits.
const { spawn } = require('node:child_process');
const { binaryPath } = require('../lib/index.js');

let bin;
try {
  bin = binaryPath();
} catch (err) {
  process.stderr.write(`contractkit: ${err.message}\n`);
  process.exit(1);
}

// Each signal must reach the binary once. A terminal's Ctrl-C, a CI runner
// or Playwright signal a whole process group: were the binary in this
// process's group it would get the signal from them and once more from
// here, and a second interrupt makes the conformance suite skip its
// clean-up. So, on Unix, the binary runs in a group of its own and gets
// its signals from here only; a copy of the same signal arriving within
// FANOUT_MS (npx passes on what its group already got) is the same signal.
// The binary also holds one end of a pipe (CONTRACTKIT_LAUNCHER_FD): when
// this process dies, even by SIGKILL, the pipe closes and the binary stops
// as on SIGTERM (cmd/contractkit/launcher_unix.go). On Windows, Ctrl-C
// reaches every process of the console: nothing is passed on.
const FANOUT_MS = 500;
const unix = process.platform !== 'win32';
const child = unix
  ? spawn(bin, process.argv.slice(2), {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    detached: true,
    env: { ...process.env, CONTRACTKIT_LAUNCHER_FD: '3' },
  })
  : spawn(bin, process.argv.slice(2), { stdio: 'inherit', windowsHide: true });

const signals = unix ? ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] : ['SIGINT', 'SIGBREAK'];
const last = {};
for (const signal of signals) {
  process.on(signal, () => {
    if (!unix) return; // the console has told the binary already
    const now = Date.now();
    if (last[signal] !== undefined && now - last[signal] < FANOUT_MS) return;
    last[signal] = now;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}

child.on('error', (err) => {
  process.stderr.write(`contractkit: cannot run ${bin}: ${err.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) {
    // Ended by a signal: end the same way, so a caller sees what a direct
    // run would have shown.
    for (const s of signals) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code);
});
