// A Connect protocol client for sokod.v1.SolverService: unary calls as
// JSON POSTs, server streams as enveloped JSON messages read from the
// response body, as the Connect protocol specification
// (connectrpc.com/docs/protocol) describes them.

const service = '/sokod.v1.SolverService/';

// RpcError is a failed call: code is Connect's ("invalid_argument",
// "not_found", ...), reason the daemon's ErrorInfo token, if any.
export class RpcError extends Error {
  constructor(code, message, reason = '') {
    super(message);
    this.code = code;
    this.reason = reason;
  }
}

// errorOf turns a Connect error object into an RpcError.
function errorOf(e, fallback) {
  if (!e || typeof e !== 'object') return new RpcError('unknown', fallback);
  let reason = '';
  for (const d of e.details || []) {
    // ErrorInfo arrives as a typed detail with its JSON in "debug" when
    // the server can, else only base64: the reason then stays empty.
    if (d && d.debug && d.debug.reason) reason = d.debug.reason;
  }
  return new RpcError(e.code || 'unknown', e.message || fallback, reason);
}

// call makes a unary call and returns the response message.
export async function call(method, request, { signal } = {}) {
  let res;
  try {
    res = await fetch(service + method, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Connect-Protocol-Version': '1' },
      body: JSON.stringify(request),
      signal,
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new RpcError('unavailable', `cannot reach the daemon: ${err.message}`);
  }
  const text = await res.text();
  let body = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    throw new RpcError('unknown', `${method}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  }
  if (!res.ok) throw errorOf(body, `${method}: HTTP ${res.status}`);
  return body;
}

// envelope frames one JSON message as Connect's streaming requests do:
// a flags byte, a big-endian length, the message.
function envelope(message) {
  const data = new TextEncoder().encode(JSON.stringify(message));
  const out = new Uint8Array(5 + data.length);
  new DataView(out.buffer).setUint32(1, data.length);
  out.set(data, 5);
  return out;
}

// stream makes a server-streaming call and yields each response message;
// it throws an RpcError when the stream ends with an error. Aborting the
// signal closes the stream.
export async function* stream(method, request, { signal } = {}) {
  let res;
  try {
    res = await fetch(service + method, {
      method: 'POST',
      headers: { 'Content-Type': 'application/connect+json', 'Connect-Protocol-Version': '1' },
      body: envelope(request),
      signal,
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new RpcError('unavailable', `cannot reach the daemon: ${err.message}`);
  }
  if (!res.ok) {
    const text = await res.text();
    let body = null;
    try { body = JSON.parse(text); } catch { /* not JSON */ }
    throw errorOf(body, `${method}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = new Uint8Array(0);
  for (;;) {
    // Take every whole envelope in the buffer.
    while (buf.length >= 5) {
      const view = new DataView(buf.buffer, buf.byteOffset, buf.length);
      const flags = buf[0];
      const size = view.getUint32(1);
      if (buf.length < 5 + size) break;
      const msg = JSON.parse(decoder.decode(buf.subarray(5, 5 + size)) || '{}');
      buf = buf.slice(5 + size);
      if (flags & 0x02) {
        // End of stream: an error, or a clean end.
        if (msg.error) throw errorOf(msg.error, `${method} failed`);
        return;
      }
      yield msg;
    }
    const { value, done } = await reader.read();
    if (done) {
      if (buf.length) throw new RpcError('data_loss', `${method}: the stream ended inside a message`);
      throw new RpcError('unavailable', `${method}: the stream ended without its end message`);
    }
    const next = new Uint8Array(buf.length + value.length);
    next.set(buf);
    next.set(value, buf.length);
    buf = next;
  }
}

// num reads an int64 field, which protobuf's JSON writes as a string.
export function num(v) {
  return v === undefined ? 0 : Number(v);
}

// seconds reads a google.protobuf.Duration ("1.5s").
export function seconds(d) {
  return d ? parseFloat(d) : 0;
}
