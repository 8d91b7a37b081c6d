import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { runStrfryPlugin, type AdmissionDecision, type RelayAdmission } from '@wallet/relay-admission';

/**
 * The strfry line loop on its own, with an admission whose every answer the test controls: what
 * it writes, in which order, when it reads on, and when it is done. (The executable against a
 * real database, on both dialects, is strfry.test.ts.)
 */

const ACCEPT: AdmissionDecision = { accept: true, message: '' };
const id = (n: number) => n.toString(16).padStart(64, '0');
const line = (n: number, type = 'new') => `${JSON.stringify({ type, event: { id: id(n), pubkey: id(1000 + n), kind: 1 }, receivedAt: 1, sourceType: 'IP4', sourceInfo: '127.0.0.1' })}\n`;

/** Decisions by event id: a value is answered at once, `'wait'` through a promise the test settles. */
function scriptedAdmission(answers: Map<string, AdmissionDecision | 'wait'>) {
  const waiting = new Map<string, (decision: AdmissionDecision) => void>();
  const asked: string[] = [];
  const admission: RelayAdmission = {
    admitNow(event) {
      const eventId = (event as { id: string }).id;
      asked.push(eventId);
      const answer = answers.get(eventId) ?? ACCEPT;
      if (answer !== 'wait') return answer;
      return new Promise<AdmissionDecision>((resolve) => waiting.set(eventId, resolve));
    },
    admit: () => Promise.reject(new Error('the strfry loop asks admitNow')),
    close: () => Promise.resolve(),
  };
  return { admission, asked, settle: (eventId: string, decision: AdmissionDecision) => waiting.get(eventId)!(decision) };
}

function harness(answers: Map<string, AdmissionDecision | 'wait'>, timeoutMs = 60_000) {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString()));
  const warnings: string[] = [];
  const scripted = scriptedAdmission(answers);
  let done = false;
  const run = runStrfryPlugin({ admission: scripted.admission, input, output, warn: (message) => warnings.push(message), timeoutMs }).then(() => {
    done = true;
  });
  return { input, run, warnings, ...scripted, raw: () => written, answers: () => written.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { id: string; action: string; msg: string }), isDone: () => done };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('relay admission: the strfry plugin’s line loop', () => {
  it('a line that arrives while a decision waits on the database is answered after it, in request order', async () => {
    const h = harness(new Map([[id(1), 'wait']]));
    h.input.write(line(1) + line(2) + line(3));
    await turn();
    expect(h.answers(), 'nothing is written ahead of the waiting decision').to.deep.equal([]);
    expect(h.asked, 'later lines are not decided before it').to.deep.equal([id(1)]);
    h.settle(id(1), { accept: false, message: 'blocked: no' });
    await turn();
    expect(h.answers()).to.deep.equal([
      { id: id(1), action: 'reject', msg: 'blocked: no' },
      { id: id(2), action: 'accept', msg: '' },
      { id: id(3), action: 'accept', msg: '' },
    ]);
    h.input.end();
    await h.run;
  });

  it('held lines that wait on the database in turn are answered one after another, each after its own decision', async () => {
    const h = harness(new Map<string, AdmissionDecision | 'wait'>([[id(1), 'wait'], [id(3), 'wait']]));
    h.input.write(line(1) + line(2) + line(3) + line(4));
    await turn();
    h.settle(id(1), ACCEPT);
    await turn();
    expect(h.answers().map((a) => a.id)).to.deep.equal([id(1), id(2)]);
    expect(h.asked).to.deep.equal([id(1), id(2), id(3)]);
    h.settle(id(3), ACCEPT);
    await turn();
    expect(h.answers().map((a) => a.id)).to.deep.equal([id(1), id(2), id(3), id(4)]);
    h.input.end();
    await h.run;
  });

  it('the input ending while a decision waits ends the loop only after that answer and the held lines’ are written', async () => {
    const h = harness(new Map([[id(1), 'wait']]));
    h.input.end(line(1) + line(2));
    await turn();
    await turn();
    expect(h.isDone(), 'not done while an answer is owed').to.equal(false);
    h.settle(id(1), ACCEPT);
    await h.run;
    expect(h.answers().map((a) => a.id)).to.deep.equal([id(1), id(2)]);
  });

  it('the input is paused at the 1,024th held line, not before, and read again once they are answered', async () => {
    const h = harness(new Map([[id(1), 'wait']]));
    h.input.write(line(1));
    await turn();
    h.input.write(Array.from({ length: 1_023 }, (_, i) => line(2 + i)).join(''));
    await turn();
    expect(h.input.isPaused(), '1,023 held: still reading').to.equal(false);
    h.input.write(line(1_025) + line(1_026));
    await turn();
    expect(h.input.isPaused(), '1,024 held: paused').to.equal(true);
    h.settle(id(1), ACCEPT);
    await turn();
    expect(h.input.isPaused(), 'resumed once the held lines are answered').to.equal(false);
    h.input.end(line(5_000));
    await h.run;
    expect(h.answers().map((a) => a.id)).to.deep.equal([...Array.from({ length: 1_026 }, (_, i) => id(1 + i)), id(5_000)]);
  });

  it('the input failing ends the loop with its error', async () => {
    const h = harness(new Map([[id(1), 'wait']]));
    h.input.write(line(1));
    await turn();
    h.input.destroy(new Error('the relay’s pipe broke'));
    let failed: unknown = null;
    await h.run.catch((err: unknown) => (failed = err));
    expect((failed as Error | null)?.message).to.equal('the relay’s pipe broke');
  });

  it('an answer that cannot be written ends the loop with that error, whether decided at once or after a wait', async () => {
    for (const answer of [ACCEPT, 'wait'] as const) {
      const input = new PassThrough();
      const scripted = scriptedAdmission(new Map([[id(1), answer]]));
      const output = new PassThrough();
      output.write = () => {
        throw new Error('stdout is gone');
      };
      const outcome = runStrfryPlugin({ admission: scripted.admission, input, output, warn: () => {} }).then(
        () => null,
        (err: unknown) => err,
      );
      input.write(line(1));
      await turn();
      if (answer === 'wait') scripted.settle(id(1), ACCEPT);
      expect(((await outcome) as Error | null)?.message, String(answer)).to.equal('stdout is gone');
    }
  });

  it('a decision slower than the timeout is refused with error:, and the lines held behind it go on', async () => {
    const h = harness(new Map([[id(1), 'wait']]), 50);
    h.input.write(line(1) + line(2));
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(h.answers()).to.deep.equal([
      { id: id(1), action: 'reject', msg: 'error: the relay cannot check admission right now; try again later' },
      { id: id(2), action: 'accept', msg: '' },
    ]);
    h.input.end();
    await h.run;
  });

  it('writes each answer as the bytes JSON.stringify gives {id, action, msg}, whatever the id and message hold', async () => {
    const odd = 'quote " backslash \\ newline \n tab \t nul \u0000 ’ 😀';
    const h = harness(new Map<string, AdmissionDecision | 'wait'>([[id(2), { accept: false, message: odd }], [id(4), 'wait']]));
    const strangeId = 'an "id" \\ with\nescapes ’';
    const requests = [JSON.stringify({ type: 'lookback', event: { id: strangeId } }), line(2).trimEnd(), line(3, 'new').trimEnd(), 'not json', JSON.stringify({ type: 'new', event: {} }), line(4).trimEnd()];
    h.input.end(requests.join('\n') + '\n');
    await turn();
    // Decided after a wait on the database: written by the same rule.
    h.settle(id(4), { accept: false, message: odd });
    await h.run;
    // The raw bytes: the answers must be exactly these lines.
    expect(h.raw()).to.equal(
      [
        JSON.stringify({ id: strangeId, action: 'reject', msg: 'error: unknown request type "lookback"' }),
        JSON.stringify({ id: id(2), action: 'reject', msg: odd }),
        JSON.stringify({ id: id(3), action: 'accept', msg: '' }),
        JSON.stringify({ id: id(4), action: 'reject', msg: odd }),
      ].join('\n') + '\n',
    );
    expect(h.warnings).to.deep.equal(['strfry plugin: skipped a line that is not JSON', 'strfry plugin: skipped a request without event.id']);
  });
});
