import type { IncomingMessage } from 'node:http';
import { coreErrors, type WalletError } from '../errors/index.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * After a 413 the connection is closed (`Connection: close`): what is left of the refused body
 * would otherwise be parsed as the next request, or drained without end. Until Node closes the
 * socket, which it does once the 413 is flushed, arriving bytes are read and dropped, so the
 * socket is not reset under a response the client has not read yet; a sender that pushes more
 * than this meanwhile is cut off at once.
 */
const DISCARD_LIMIT_BYTES = 1_048_576;

function payloadTooLarge(req: IncomingMessage): WalletError {
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT_BYTES) req.socket.destroy();
  });
  req.on('error', () => {
    // The client went away after its refusal: nothing left to answer.
  });
  req.resume();
  return coreErrors.create.payload_too_large({ headers: { Connection: 'close' } });
}

/** The client closed the connection (or Node's request timeout cut it) before the body was complete. */
export function isClientAbort(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === 'ECONNRESET' && e.message === 'aborted';
}

/** The body of a request without one: zero bytes, so one shared buffer serves every such request. */
export const NO_BODY = Buffer.alloc(0);

/** Whether requests of this method carry a body to read (GET, HEAD and OPTIONS do not: their body is NO_BODY). */
export function carriesBody(method: string): boolean {
  return METHODS_WITH_BODY.has(method);
}

/**
 * Reads the raw request body, refusing more than `limitBytes` (413, and the connection is
 * closed after the answer) before buffering it all. A client that disconnects mid-body is
 * 499 `client_closed`, never a server error. The backend owns body parsing because signed
 * actions hash these exact bytes; a body parser mounted in front of it would consume the
 * stream (docs/embedding.md).
 */
export async function readRawBody(req: IncomingMessage, method: string, limitBytes: number): Promise<Buffer> {
  if (!carriesBody(method)) return NO_BODY;
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limitBytes) throw payloadTooLarge(req);
  if (req.readableEnded) {
    // Something upstream already read the stream: a misconfigured host, not a bad request.
    if (Number(declared ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined) {
      throw new Error('the request body was consumed before the wallet backend read it: remove the body parser mounted in front of it (docs/embedding.md)');
    }
    return Buffer.alloc(0);
  }
  if (req.destroyed) throw coreErrors.create.client_closed();
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        reject(payloadTooLarge(req));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(isClientAbort(err) ? coreErrors.create.client_closed({ cause: err }) : err);
    };
    const onClose = () => {
      cleanup();
      reject(coreErrors.create.client_closed());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * The JSON value of a raw body: `undefined` for an empty body, 415 for a non-JSON media type,
 * 400 `invalid_json` for bytes that are not UTF-8 JSON.
 */
export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) throw coreErrors.create.unsupported_media_type();
  try {
    return JSON.parse(utf8.decode(raw));
  } catch {
    throw coreErrors.create.invalid_json();
  }
}
