// A Server-Sent Events reader over fetch's body.getReader(): what an app
// reading the inference stream does, line by line.

// readEvents reads a Server-Sent Events body line by line and hands the
// data of each event to onData; it returns true when onData returns true
// (the [DONE] marker), false when the stream ends without it.
export async function readEvents(body, onData) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let data = [];
  const line = (l) => {
    if (l === '') { // a blank line ends an event
      if (!data.length) return false;
      const d = data.join('\n');
      data = [];
      return onData(d);
    }
    if (l.startsWith(':')) return false; // a comment
    const i = l.indexOf(':');
    const field = i < 0 ? l : l.slice(0, i);
    let value = i < 0 ? '' : l.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value); // event:, id: and retry: are not used
    return false;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buf += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      for (let i = 0; i < buf.length; i++) {
        const c = buf[i];
        if (c !== '\n' && c !== '\r') continue;
        if (c === '\r' && i === buf.length - 1 && !done) break; // maybe the first half of CRLF
        const l = buf.slice(start, i);
        if (c === '\r' && buf[i + 1] === '\n') i++;
        start = i + 1;
        if (line(l)) return true;
      }
      buf = buf.slice(start);
      if (done) return (buf !== '' && line(buf)) || line('');
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
