import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { expect } from 'chai';
import knexFactory from 'knex';
import { createRelayAdmission, NAUTHZ_PROTO, startNauthzServer, type NauthzServer, type NostrEvent, type RelayAdmission } from '@wallet/relay-admission';
import { eachDialect, seedUser } from '../harness/index.js';
import { freePort, spawnEntry, REPO_ROOT, type Spawned } from '../harness/processes.js';
import { eventToWire } from './plugin-process.js';
import { giftWrap, nostrKey, signed, useAdmissionWorld } from './world.js';

// The DENY messages, written out. nostr-rs-relay sends the client `OK false "blocked: <message>"`
// (its Notice::blocked), so they carry no NIP-01 prefix of their own.
const NEEDS_PREMIUM = 'this kind of event needs premium on this relay';
const GIFT_WRAP_NOT_FOR_USER = 'gift wraps are accepted here only for the relay’s users';
const NOT_A_USER = 'only the relay’s users may post here; others may send them gift-wrapped DMs';
const UNAVAILABLE = 'the relay cannot check admission right now; try again later';

interface Reply {
  decision: string;
  message: string;
}
const PERMIT: Reply = { decision: 'DECISION_PERMIT', message: '' };
const deny = (message: string): Reply => ({ decision: 'DECISION_DENY', message });

/** The relay's own view of the proto: field names as written, 64-bit integers as strings. */
const LOADER_OPTIONS: protoLoader.Options = { keepCase: true, longs: String, enums: String, bytes: Buffer, defaults: true, oneofs: true };

interface WireRequest {
  event?: { id: Buffer; pubkey: Buffer; created_at: number; kind: number; content: string; tags: Array<{ values: string[] }>; sig: Buffer };
  ip_addr?: string;
  origin?: string;
  user_agent?: string;
  auth_pubkey?: Buffer;
  nip05?: { local: string; domain: string };
}

/** An EventRequest as nostr-rs-relay builds it from a verified event (src/nauthz.rs). */
function wire(event: NostrEvent, extras: Omit<WireRequest, 'event'> = {}): WireRequest {
  return { event: eventToWire(event), ...extras };
}

type EventAdmit = (request: WireRequest, callback: (err: grpc.ServiceError | null, reply?: Reply) => void) => void;

/** A real gRPC client on the package's proto. */
function nauthzClient(address: string): { admit(request: WireRequest): Promise<Reply>; close(): void } {
  const nauthz = grpc.loadPackageDefinition(protoLoader.loadSync(NAUTHZ_PROTO, LOADER_OPTIONS)).nauthz as grpc.GrpcObject;
  const Authorization = nauthz.Authorization as grpc.ServiceClientConstructor;
  const client = new Authorization(address, grpc.credentials.createInsecure());
  return {
    admit: (request) =>
      new Promise((resolve, reject) =>
        (client.EventAdmit as EventAdmit).call(client, request, (err, reply) => (err ? reject(err) : resolve({ decision: reply!.decision, message: reply!.message }))),
      ),
    close: () => client.close(),
  };
}

// Protocol buffers by hand: tag = field << 3 | wire type (0 varint, 1 fixed64, 2 length-delimited).
function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}
const key = (field: number, wireType: number) => varint(field * 8 + wireType);
const len = (field: number, payload: Buffer | string) => {
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([key(field, 2), varint(bytes.length), bytes]);
};
const uint = (field: number, value: number) => Buffer.concat([key(field, 0), varint(value)]);
function fixed64(field: number, value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(BigInt(value));
  return Buffer.concat([key(field, 1), bytes]);
}

/** An EventReply's fields read by hand (decision=1 varint, message=2 string). */
function readReply(bytes: Buffer): { decision: number; message?: string } {
  const reply: { decision: number; message?: string } = { decision: 0 };
  let at = 0;
  const readVarint = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * scale;
      scale *= 0x80;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const tag = readVarint();
    if (tag === (1 << 3) + 0) reply.decision = readVarint();
    else if (tag === (2 << 3) + 2) {
      const size = readVarint();
      reply.message = bytes.subarray(at, at + size).toString('utf8');
      at += size;
    } else throw new Error(`unexpected field tag ${tag} in an EventReply`);
  }
  return reply;
}

const ID = 'a1'.repeat(32);
const PUBKEY = 'b2'.repeat(32);
const SIG = 'c3'.repeat(64);
const AUTH = 'd4'.repeat(32);

/** The EventRequest the relay sends for a kind-30023 event with two tags, byte by byte. */
const HAND_ENCODED = Buffer.concat([
  len(
    1,
    Buffer.concat([
      len(1, Buffer.from(ID, 'hex')),
      len(2, Buffer.from(PUBKEY, 'hex')),
      fixed64(3, 1_767_225_600),
      uint(4, 30_023),
      len(5, 'long-form ✓'),
      len(6, Buffer.concat([len(1, 'p'), len(1, PUBKEY), len(1, 'wss://relay.example.test')])),
      len(6, len(1, 'd')),
      len(7, Buffer.from(SIG, 'hex')),
    ]),
  ),
  len(2, '203.0.113.9'),
  len(3, 'https://client.example.test'),
  len(4, 'nostr-client/1.0'),
  len(5, Buffer.from(AUTH, 'hex')),
  len(6, Buffer.concat([len(1, 'alice'), len(2, 'example.test')])),
]);

describe('relay admission: nauthz.proto against nostr-rs-relay’s wire format', () => {
  it('a hand-encoded EventRequest decodes field for field with the loaded definition', () => {
    const method = (protoLoader.loadSync(NAUTHZ_PROTO, LOADER_OPTIONS)['nauthz.Authorization'] as protoLoader.ServiceDefinition).EventAdmit!;
    expect(method.path).to.equal('/nauthz.Authorization/EventAdmit');
    const decoded = method.requestDeserialize(HAND_ENCODED) as Record<string, unknown>;
    expect(decoded).to.deep.include({
      event: {
        id: Buffer.from(ID, 'hex'),
        pubkey: Buffer.from(PUBKEY, 'hex'),
        created_at: '1767225600',
        kind: '30023',
        content: 'long-form ✓',
        tags: [{ values: ['p', PUBKEY, 'wss://relay.example.test'] }, { values: ['d'] }],
        sig: Buffer.from(SIG, 'hex'),
      },
      ip_addr: '203.0.113.9',
      origin: 'https://client.example.test',
      user_agent: 'nostr-client/1.0',
      auth_pubkey: Buffer.from(AUTH, 'hex'),
      nip05: { local: 'alice', domain: 'example.test' },
    });
    // And the definition encodes the same request to the same bytes.
    expect(Buffer.from(method.requestSerialize(decoded)).toString('hex')).to.equal(HAND_ENCODED.toString('hex'));
    // The reply: decision 2 = DECISION_DENY, message 2.
    expect(Buffer.from(method.responseSerialize({ decision: 'DECISION_DENY', message: 'blocked: x' })).toString('hex')).to.equal('0802120a626c6f636b65643a2078');
    expect(method.responseDeserialize(Buffer.from('0801', 'hex'))).to.deep.include({ decision: 'DECISION_PERMIT' });
  });
});

eachDialect('relay admission: the nostr-rs-relay nauthz gRPC server', (dialect) => {
  const w = useAdmissionWorld(dialect);
  let server: NauthzServer | undefined;
  let admission: RelayAdmission | undefined;
  let client: ReturnType<typeof nauthzClient> | undefined;
  let spawned: Spawned | undefined;
  const start = async (knex = w.t.backend.db.knex) => {
    admission = createRelayAdmission({ knex, verifySignatures: false, now: () => w.t.clock.now(), logger: w.t.logger });
    server = await startNauthzServer({ admission, listen: '127.0.0.1:0' });
    client = nauthzClient(server.address);
    return client;
  };
  afterEach(async () => {
    client?.close();
    await server?.close();
    await admission?.close();
    if (spawned && spawned.child.exitCode === null && spawned.child.signalCode === null) {
      spawned.child.kill('SIGKILL');
      await spawned.exited;
    }
    [client, server, admission, spawned] = [undefined, undefined, undefined, undefined];
  });

  it('answers every row of the admission table, sent as the relay sends it', async function () {
    this.timeout(60_000);
    const c = await start();
    expect(server!.address).to.match(/^127\.0\.0\.1:\d+$/);
    expect(server!.address).to.not.equal('127.0.0.1:0');
    const extras = { ip_addr: '203.0.113.9', origin: 'https://client.example.test', user_agent: 'nostr-client/1.0', auth_pubkey: Buffer.from(w.registered.pubkey, 'hex'), nip05: { local: 'alice', domain: 'example.test' } };
    const rows: Array<[string, NostrEvent, Reply]> = [
      ['premium, a note', signed(w.premium, 1), PERMIT],
      ['premium, metadata', signed(w.premium, 0), PERMIT],
      ['premium, a long-form article', signed(w.premium, 30_023, [['d', 'slug']]), PERMIT],
      ['premium, a gift wrap', signed(w.premium, 1059, [['p', w.stranger.pubkey]]), PERMIT],
      ['registered, a gift wrap to anyone', signed(w.registered, 1059, [['p', w.stranger.pubkey]]), PERMIT],
      ['registered, the DM relay list', signed(w.registered, 10_050, [['relay', 'wss://relay.example.test']]), PERMIT],
      ['registered, a note', signed(w.registered, 1), deny(NEEDS_PREMIUM)],
      ['registered, metadata', signed(w.registered, 0), deny(NEEDS_PREMIUM)],
      ['registered, a reaction', signed(w.registered, 7), deny(NEEDS_PREMIUM)],
      ['registered, a relay list', signed(w.registered, 10_002), deny(NEEDS_PREMIUM)],
      ['registered, a kind-14 DM not wrapped', signed(w.registered, 14, [['p', w.premium.pubkey]]), deny(NEEDS_PREMIUM)],
      ['stranger, a gift wrap to a registered user', giftWrap(w.registered.pubkey), PERMIT],
      ['stranger, a gift wrap to a premium user', giftWrap(w.premium.pubkey), PERMIT],
      ['stranger, a gift wrap to two users', giftWrap(w.premium.pubkey, w.registered.pubkey), PERMIT],
      ['stranger, a gift wrap to a stranger', giftWrap(nostrKey().pubkey), deny(GIFT_WRAP_NOT_FOR_USER)],
      ['stranger, a gift wrap to a user and a stranger', giftWrap(w.registered.pubkey, nostrKey().pubkey), deny(GIFT_WRAP_NOT_FOR_USER)],
      ['stranger, a gift wrap to nobody', giftWrap(), deny(GIFT_WRAP_NOT_FOR_USER)],
      ['stranger, a gift wrap to a malformed key', giftWrap(w.registered.pubkey.toUpperCase()), deny(GIFT_WRAP_NOT_FOR_USER)],
      ['stranger, a gift wrap to 17 copies of a user', giftWrap(...Array<string>(17).fill(w.registered.pubkey)), deny(GIFT_WRAP_NOT_FOR_USER)],
      ['stranger, a note', signed(w.stranger, 1), deny(NOT_A_USER)],
      ['stranger, the DM relay list', signed(w.stranger, 10_050), deny(NOT_A_USER)],
      ['stranger, a note tagging a user', signed(w.stranger, 1, [['p', w.registered.pubkey]]), deny(NOT_A_USER)],
    ];
    for (const [row, event, expected] of rows) {
      expect(await c.admit(wire(event, extras)), row).to.deep.equal(expected);
      expect(await c.admit(wire(event)), `${row}, without the optional fields`).to.deep.equal(expected);
    }
    // Premium ends exactly at premium_until (the server reads the world's clock).
    w.t.clock.set(w.premiumUntil);
    expect(await c.admit(wire(signed(w.premium, 1)))).to.deep.equal(deny(NEEDS_PREMIUM));
  });

  it('an EventRequest without an event is a DENY; so is an event that is not well formed', async function () {
    this.timeout(60_000);
    const c = await start();
    expect(await c.admit({})).to.deep.equal(deny('no event'));
    expect(await c.admit({ ip_addr: '203.0.113.9', auth_pubkey: Buffer.from(w.premium.pubkey, 'hex') })).to.deep.equal(deny('no event'));
    const note = wire(signed(w.premium, 1));
    expect(await c.admit({ event: { ...note.event!, id: Buffer.alloc(31) } })).to.deep.equal(deny('id must be 64 lower-case hex characters'));
    expect(await c.admit({ event: { ...note.event!, sig: Buffer.alloc(32) } })).to.deep.equal(deny('sig must be 128 lower-case hex characters'));
    expect(await c.admit({ event: { ...note.event!, kind: 65_536 } })).to.deep.equal(deny('kind must be a whole number from 0 to 65535'));
  });

  it('fails closed: a database that is gone is a DENY with error:', async function () {
    this.timeout(60_000);
    const gone = knexFactory({ ...w.t.backend.db.knex.client.config });
    await gone.destroy();
    const c = await start(gone);
    expect(await c.admit(wire(signed(w.premium, 1)))).to.deep.equal(deny(UNAVAILABLE));
    expect(await c.admit(wire(giftWrap(w.registered.pubkey)))).to.deep.equal(deny(UNAVAILABLE));
  });

  it('the executable serves raw relay bytes on --listen and stops on SIGTERM with exit 0', async function () {
    this.timeout(180_000);
    // The executable reads the system clock: a premium that lasts.
    const premium = nostrKey();
    await seedUser(w.t.backend, { nostrPubkey: premium.pubkey, premiumUntil: new Date('2100-01-01T00:00:00.000Z') });
    const port = await freePort();
    spawned = spawnEntry('packages/relay-admission/src/bin.ts', ['grpc', '--listen', `127.0.0.1:${port}`], { env: { DATABASE_URL: w.t.databaseUrl }, cwd: REPO_ROOT });
    const started = Date.now();
    while (!spawned.stderr().includes('listening')) {
      if (spawned.child.exitCode !== null || Date.now() - started > 120_000) throw new Error(`no "listening" line; stderr:\n${spawned.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(spawned.stderr()).to.include(`"msg":"nauthz admission server listening","address":"127.0.0.1:${port}"`);
    const c = (client = nauthzClient(`127.0.0.1:${port}`));
    expect(await c.admit(wire(signed(premium, 1)))).to.deep.equal(PERMIT);
    expect(await c.admit(wire(signed(w.registered, 1)))).to.deep.equal(deny(NEEDS_PREMIUM));
    expect(await c.admit(wire(giftWrap(w.registered.pubkey), { ip_addr: '203.0.113.9' }))).to.deep.equal(PERMIT);
    expect(await c.admit({})).to.deep.equal(deny('no event'));
    // The hand-encoded request, as raw bytes on the wire: its author is nobody here, kind 30023.
    const raw = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    try {
      const replyBytes = await new Promise<Buffer>((resolve, reject) =>
        raw.makeUnaryRequest('/nauthz.Authorization/EventAdmit', (bytes: Buffer) => bytes, (bytes: Buffer) => bytes, HAND_ENCODED, (err, reply) => (err ? reject(err) : resolve(reply!))),
      );
      expect(readReply(replyBytes)).to.deep.equal({ decision: 2, message: NOT_A_USER });
    } finally {
      raw.close();
    }
    expect(spawned.stdout()).to.equal('');
    spawned.child.kill('SIGTERM');
    expect(await spawned.exited).to.equal(0);
  });
});
