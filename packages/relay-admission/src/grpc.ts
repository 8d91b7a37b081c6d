import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { RelayAdmission } from './admission.js';
import type { NostrEvent } from './event.js';
import { within } from './deadline.js';
import { unavailable } from './policy.js';

/** The proto shipped with the package: nostr-rs-relay's nauthz.proto, field for field. */
export const NAUTHZ_PROTO = fileURLToPath(new URL('../proto/nauthz.proto', import.meta.url));

/** Loads the nauthz package definition (field names as in the proto, e.g. created_at; long integers as Numbers, bytes as Buffers, enums as names). */
export function loadNauthz(): grpc.GrpcObject {
  const definition = protoLoader.loadSync(NAUTHZ_PROTO, { keepCase: true, longs: Number, enums: String, bytes: Buffer, defaults: true, oneofs: true });
  return grpc.loadPackageDefinition(definition).nauthz as grpc.GrpcObject;
}

interface WireEvent {
  id: Buffer;
  pubkey: Buffer;
  created_at: number;
  kind: number;
  content: string;
  tags: Array<{ values: string[] }>;
  sig: Buffer;
}

interface EventRequest {
  event?: WireEvent | null;
}

export interface EventReply {
  decision: 'DECISION_PERMIT' | 'DECISION_DENY';
  message: string;
}

/** The event as NIP-01 JSON: ids and keys from raw bytes to lower-case hex. */
export function eventFromWire(event: WireEvent): NostrEvent {
  return {
    id: event.id.toString('hex'),
    pubkey: event.pubkey.toString('hex'),
    created_at: event.created_at,
    kind: event.kind,
    tags: event.tags.map((tag) => tag.values),
    content: event.content,
    sig: event.sig.toString('hex'),
  };
}

export interface NauthzServerOptions {
  admission: RelayAdmission;
  /** `host:port` to listen on (default 127.0.0.1:50051). */
  listen?: string;
  /** A decision taking longer than this is a denial (default 2000 ms: the relay calls on one thread). */
  timeoutMs?: number;
}

export interface NauthzServer {
  /** The bound `host:port`. */
  address: string;
  close(): Promise<void>;
}

/** NIP-01's machine-readable prefixes of an `OK` message. */
const OK_PREFIX = /^(?:blocked|error|invalid|restricted|rate-limited|pow|duplicate|mute|auth-required): /;

/**
 * A refusal's message without its NIP-01 prefix: nostr-rs-relay answers a DENY with
 * `OK false "blocked: <message>"` (its `Notice::blocked`), so a prefix of ours would be doubled.
 */
export const withoutPrefix = (message: string) => message.replace(OK_PREFIX, '');

/**
 * nostr-rs-relay's event admission server (`nauthz.Authorization/EventAdmit`, `[grpc]
 * event_admission_server` in its config.toml): only DECISION_PERMIT admits. The relay verifies
 * the event before it asks. A failure or a slow decision here is a DENY (this side fails
 * closed), but the relay itself fails OPEN when it cannot reach the server at all: see
 * docs/relay-operators.md.
 */
export async function startNauthzServer(options: NauthzServerOptions): Promise<NauthzServer> {
  const nauthz = loadNauthz();
  const service = (nauthz.Authorization as grpc.ServiceClientConstructor).service;
  const timeoutMs = options.timeoutMs ?? 2_000;
  const server = new grpc.Server();
  server.addService(service, {
    EventAdmit: (call: grpc.ServerUnaryCall<EventRequest, EventReply>, callback: grpc.sendUnaryData<EventReply>) => {
      const deny = (message: string) => callback(null, { decision: 'DECISION_DENY', message });
      const wire = call.request.event;
      if (wire === null || wire === undefined) {
        deny('no event');
        return;
      }
      within(options.admission.admit(eventFromWire(wire)), timeoutMs, unavailable)
        .then((decision) => callback(null, { decision: decision.accept ? 'DECISION_PERMIT' : 'DECISION_DENY', message: withoutPrefix(decision.message) }))
        .catch(() => callback(null, { decision: 'DECISION_DENY', message: withoutPrefix(unavailable().message) }));
    },
  });
  const listen = options.listen ?? '127.0.0.1:50051';
  const port = await new Promise<number>((resolve, reject) => server.bindAsync(listen, grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))));
  const host = listen.slice(0, listen.lastIndexOf(':'));
  return {
    address: `${host}:${port}`,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
