import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { REPO_ROOT } from '../../harness/index.js';

/**
 * The default destination batches lines into one write per 16 KB or 100 ms: every line still
 * arrives, in order, whole, also when the process exits before the batch is due (flushed
 * synchronously at exit), a burst is written in 16 KB batches as it goes, and a line is out
 * within the delay even if the process is then killed outright. Run in a real process on the
 * built package, the way a host's stdout sees it.
 */
describe('logger: the default stdout destination', () => {
  const run = (body: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'logger-stdout-'));
    const file = join(dir, 'log.mjs');
    const core = pathToFileURL(join(REPO_ROOT, 'packages/core/dist/index.js')).href;
    writeFileSync(file, `import { createJsonLogger } from ${JSON.stringify(core)};\nconst logger = createJsonLogger();\n${body}\n`);
    const { NODE_OPTIONS: _ignored, ...env } = process.env;
    const result = spawnSync(process.execPath, [file], { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    return { status: result.status, lines: result.stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { msg: string; n?: number }) };
  };

  it('writes every line in order across turns', () => {
    const out = run(`for (let n = 0; n < 3; n++) logger.info('first turn', { n });\nsetImmediate(() => { logger.info('next turn', { n: 3 }); });`);
    expect(out.status).to.equal(0);
    expect(out.lines.map((line) => [line.msg, line.n])).to.deep.equal([
      ['first turn', 0],
      ['first turn', 1],
      ['first turn', 2],
      ['next turn', 3],
    ]);
  });

  it('loses nothing when the process exits in the same turn (process.exit and an uncaught error)', () => {
    const exited = run(`logger.info('before exit', { n: 1 });\nlogger.error('last words', { n: 2 });\nprocess.exit(3);`);
    expect(exited.status).to.equal(3);
    expect(exited.lines.map((line) => line.msg)).to.deep.equal(['before exit', 'last words']);
    const crashed = run(`process.on('uncaughtException', (err) => { logger.error('uncaught', { n: 9 }); process.exit(1); });\nlogger.info('working', { n: 8 });\nthrow new Error('boom');`);
    expect(crashed.status).to.equal(1);
    expect(crashed.lines.map((line) => line.msg)).to.deep.equal(['working', 'uncaught']);
  });

  it('writes a pending line within 100 ms, so a process killed outright (SIGKILL, no exit hook) 300 ms later still shows it', () => {
    const out = run(`logger.info('written by the timer', { n: 1 });\nsetTimeout(() => { logger.info('never written', { n: 2 }); process.kill(process.pid, 'SIGKILL'); }, 300);`);
    expect(out.lines.map((line) => line.msg)).to.deep.equal(['written by the timer']);
  });

  it('writes a burst as it goes, before the delay, when it passes 16 KB (seen by a process killed in the same turn)', () => {
    const out = run(`const pad = 'x'.repeat(1000);\nfor (let n = 0; n < 40; n++) logger.info('burst', { n, pad });\nprocess.kill(process.pid, 'SIGKILL');`);
    // 40 lines of ~1.1 KB: the first batches of 16 KB are out, the rest died with the process.
    expect(out.lines.length).to.be.within(14, 39);
    expect(out.lines.map((line) => line.n)).to.deep.equal(Array.from({ length: out.lines.length }, (_, n) => n));
  });

  it('writes a burst past 64 KB whole, line by line', () => {
    const out = run(`const pad = 'x'.repeat(1000);\nfor (let n = 0; n < 300; n++) logger.info('burst', { n, pad });`);
    expect(out.lines).to.have.length(300);
    expect(out.lines.map((line) => line.n)).to.deep.equal(Array.from({ length: 300 }, (_, n) => n));
  });
});
