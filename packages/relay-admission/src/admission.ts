import { connect, createJsonLogger, type Knex, type Logger } from '@wallet/backend-core';
import { verifyEvent } from 'nostr-tools/pure';
import { within } from './deadline.js';
import { eventShapeProblem, isPubkeyHex, taggedPubkeys, type NostrEvent } from './event.js';
import { Membership } from './membership.js';
import { ACCEPT, decide, MAX_GIFT_WRAP_RECIPIENTS, unavailable, type AdmissionDecision, type AuthorStanding } from './policy.js';

export interface RelayAdmissionOptions {
  /** The wallet database, as a knex instance you own (closed by you) … */
  knex?: Knex;
  /** … or its URL (`postgres://…`, `sqlite:…`, as DATABASE_URL), opened and closed by the hook. A read-only role is enough. */
  databaseUrl?: string;
  /** `premium-post` (default): the spec's admission table. `open`: every well-formed event is accepted. */
  writePolicy?: 'premium-post' | 'open';
  /**
   * Check each event's id and signature (default true). strfry and nostr-rs-relay verify before
   * they ask, so their adapters turn this off; a host that has not verified must leave it on.
   */
  verifySignatures?: boolean;
  /** How long a user's standing is reused, in ms (default 10 000; 0 reads the database for every event). A premium lapse is exact regardless. */
  cacheTtlMs?: number;
  /** A database read slower than this refuses the event (default 2000 ms): the relay must never wait on the wallet. */
  timeoutMs?: number;
  /** The clock (tests). */
  now?: () => Date;
  /** Where the hook reports database failures (default: JSON lines on stderr). Never an event's content. */
  logger?: Logger;
}

/** What the relay tells the hook besides the event; informational (the decision is by author and kind). */
export interface AdmissionContext {
  /** The pubkey authenticated on the connection by NIP-42, if any. */
  authedPubkey?: string;
  ip?: string;
}

export interface RelayAdmission {
  /** Accept or refuse, in NIP-01 `OK` terms. Never throws: any failure refuses (fails closed). */
  admit(event: unknown, context?: AdmissionContext): Promise<AdmissionDecision>;
  close(): Promise<void>;
}

export const ADMISSION_DEFAULTS = { writePolicy: 'premium-post', verifySignatures: true, cacheTtlMs: 10_000, timeoutMs: 2_000 } as const;

const stderrLogger = () => createJsonLogger({ write: (line) => process.stderr.write(`${line}\n`), bindings: { component: 'relay-admission' } });

/**
 * The relay admission hook (spec › Events 4): the `premium-post` write policy over the wallet
 * database, by npub only, failing closed.
 *
 * @example
 * const admission = createRelayAdmission({ databaseUrl: process.env.DATABASE_URL });
 * const { accept, message } = await admission.admit(event);
 */
export function createRelayAdmission(options: RelayAdmissionOptions): RelayAdmission {
  if ((options.knex === undefined) === (options.databaseUrl === undefined)) throw new Error('createRelayAdmission needs exactly one of knex or databaseUrl');
  const logger = options.logger ?? stderrLogger();
  const owned = options.databaseUrl === undefined ? null : connect(options.databaseUrl, 4, logger);
  const knex = options.knex ?? owned!.knex;
  const clock = options.now ?? (() => new Date());
  const policy = options.writePolicy ?? ADMISSION_DEFAULTS.writePolicy;
  const verify = options.verifySignatures ?? ADMISSION_DEFAULTS.verifySignatures;
  const timeoutMs = options.timeoutMs ?? ADMISSION_DEFAULTS.timeoutMs;
  const membership = new Membership(knex, () => clock().getTime(), options.cacheTtlMs ?? ADMISSION_DEFAULTS.cacheTtlMs);

  async function judge(event: NostrEvent): Promise<AdmissionDecision> {
    const tagged = event.kind === 1059 ? taggedPubkeys(event) : [];
    // A gift wrap naming more recipients than allowed is refused whoever they are: they are not read (tens of thousands
    // of p tags overflowed the query's parameters, refused with error: and logged the whole query, and evicted the cache).
    const recipients = tagged.length > MAX_GIFT_WRAP_RECIPIENTS ? [] : tagged.filter(isPubkeyHex);
    const standings = await membership.read([event.pubkey, ...recipients]);
    const author = standings.get(event.pubkey);
    const standing: AuthorStanding = membership.isPremium(author) ? 'premium' : author?.registered ? 'registered' : 'unregistered';
    return decide(event, standing, (pubkeys) => pubkeys.every((pubkey) => standings.get(pubkey)?.registered === true));
  }

  return {
    async admit(value) {
      const problem = eventShapeProblem(value);
      if (problem !== null) return { accept: false, message: `invalid: ${problem}` };
      const event = value as NostrEvent;
      // A fresh object: nostr-tools remembers a verdict on the event object itself (a symbol key), which a copy of a tampered event would carry along.
      if (verify && !verifyEvent({ id: event.id, pubkey: event.pubkey, created_at: event.created_at, kind: event.kind, tags: event.tags, content: event.content, sig: event.sig })) {
        return { accept: false, message: 'invalid: bad event id or signature' };
      }
      if (policy === 'open') return ACCEPT;
      try {
        return await within(judge(event), timeoutMs, () => {
          throw new Error(`the wallet database did not answer within ${timeoutMs} ms`);
        });
      } catch (err) {
        logger.error('relay admission failed closed: the event is refused', { error: (err as Error).message, event_id: event.id });
        return unavailable();
      }
    },
    async close() {
      await owned?.knex.destroy();
    },
  };
}
