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
  return { input, run, warnings, ...scripted, answers: () => written.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { id: string; action: string; msg: string }), isDone: () => done };
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

  it('past 1,024 held lines the input is paused, and read again once they are answered', async () => {
    const h = harness(new Map([[id(1), 'wait']]));
    h.input.write(line(1));
    await turn();
    const held = Array.from({ length: 1_100 }, (_, i) => line(2 + i)).join('');
    h.input.write(held);
    await turn();
    expect(h.input.isPaused(), 'paused at the high-water mark').to.equal(true);
    h.settle(id(1), ACCEPT);
    await turn();
    expect(h.input.isPaused(), 'resumed once the held lines are answered').to.equal(false);
    h.input.end(line(5_000));
    await h.run;
    const ids = h.answers().map((a) => a.id);
    expect(ids).to.have.length(1_102);
    expect(ids).to.deep.equal([...Array.from({ length: 1_101 }, (_, i) => id(1 + i)), id(5_000)]);
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
    const h = harness(new Map([[id(2), { accept: false, message: odd }]]));
    const strangeId = 'an "id" \\ with\nescapes ’';
    const requests = [JSON.stringify({ type: 'lookback', event: { id: strangeId } }), line(2).trimEnd(), line(3, 'new').trimEnd(), 'not json', JSON.stringify({ type: 'new', event: {} })];
    let written = '';
    // A fresh reader of the raw bytes: the answers must be exactly these lines.
    const rawOutput = new PassThrough();
    rawOutput.on('data', (chunk: Buffer) => (written += chunk.toString()));
    const input = new PassThrough();
    const warnings: string[] = [];
    const run = runStrfryPlugin({ admission: h.admission, input, output: rawOutput, warn: (message) => warnings.push(message) });
    input.end(requests.join('\n') + '\n');
    await run;
    expect(written).to.equal(
      [
        JSON.stringify({ id: strangeId, action: 'reject', msg: 'error: unknown request type "lookback"' }),
        JSON.stringify({ id: id(2), action: 'reject', msg: odd }),
        JSON.stringify({ id: id(3), action: 'accept', msg: '' }),
      ].join('\n') + '\n',
    );
    expect(warnings).to.deep.equal(['strfry plugin: skipped a line that is not JSON', 'strfry plugin: skipped a request without event.id']);
    h.input.end();
    await h.run;
  });
});
