import type { IncomingMessage } from 'node:http';
import { coreErrors } from '../errors/index.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads the raw request body, refusing more than `limitBytes` (413) before buffering it all.
 * The backend owns body parsing because signed actions hash these exact bytes; a body parser
 * mounted in front of it would consume the stream (docs/embedding.md).
 */
export async function readRawBody(req: IncomingMessage, method: string, limitBytes: number): Promise<Buffer> {
  if (!METHODS_WITH_BODY.has(method)) return Buffer.alloc(0);
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limitBytes) throw coreErrors.create.payload_too_large();
  if (req.readableEnded && Number(declared ?? 0) > 0) {
    // Something upstream already read the stream: a misconfigured host, not a bad request.
    throw new Error('the request body was consumed before the wallet backend read it: remove the body parser mounted in front of it (docs/embedding.md)');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw coreErrors.create.payload_too_large();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
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
