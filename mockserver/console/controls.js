// The mock controls panel: Prefer (code, a named example, generated data),
// X-Mock-Delay and X-Mock-Stream-Fault, sent with every API call or with
// the calls of one operation of the contract. The example is chosen from
// that operation's named examples, never typed.
import { $, fillSelect, setText } from './dom.js';
import { contract, opById, opFor, opItems } from './contract.js';

// anyCodes: what "Force a status" offers for every call at once, the error
// statuses some operation of the contract documents; for one operation it
// offers the statuses the contract documents for that one.
const anyCodes = () => [...new Set(contract.ops.flatMap((o) => o.errors))].sort();

// fillControls offers the operations of the contract and, for the one
// chosen, its documented statuses and named examples.
export function fillControls() {
  fillSelect($('ctl-op'), opItems(), 'Every API call');
  const op = opById($('ctl-op').value);
  fillSelect($('ctl-code'), (op ? op.errors : anyCodes()).map((c) => [c, c]), 'none');
  const ex = $('ctl-example');
  if (!op) {
    fillSelect(ex, [], 'Choose an operation first');
  } else if (!op.examples.length) {
    fillSelect(ex, [], 'No named example for this operation');
  } else {
    fillSelect(ex, op.examples.map((n) => [n, n]), 'none');
  }
  ex.disabled = !op || !op.examples.length;
  showControls();
}

// headers are the control headers that are set.
function headers() {
  const h = {};
  const prefer = [];
  if ($('ctl-code').value) prefer.push('code=' + $('ctl-code').value);
  if ($('ctl-example').value) prefer.push('example=' + $('ctl-example').value);
  if ($('ctl-dynamic').checked) prefer.push('dynamic=true');
  if (prefer.length) h.Prefer = prefer.join(', ');
  if ($('ctl-delay').value.trim()) h['X-Mock-Delay'] = $('ctl-delay').value.trim();
  if ($('ctl-fault').value) h['X-Mock-Stream-Fault'] = $('ctl-fault').value;
  return h;
}

// controlsFor is the control headers of one API call: all of them when
// they apply to every call, else only for a call of the chosen operation.
export function controlsFor(method, path) {
  const chosen = $('ctl-op').value;
  if (chosen) {
    const op = opFor(method, path);
    if (!op || op.id !== chosen) return {};
  }
  return headers();
}

export function showControls() {
  const names = Object.entries(headers()).map(([k, v]) => k + ': ' + v);
  const scope = $('ctl-op').value ? 'on ' + $('ctl-op').value + ' calls' : 'on every API call';
  setText($('ctl-active'), names.length ? 'Active ' + scope + ': ' + names.join('; ') : 'No control is set.');
}

export function wireControls() {
  $('ctl-op').addEventListener('change', fillControls);
  for (const id of ['ctl-code', 'ctl-example', 'ctl-delay', 'ctl-fault', 'ctl-dynamic']) $(id).addEventListener('input', showControls);
}
