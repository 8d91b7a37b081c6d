import { withBackend } from '../backend.js';
import { CliFailure, printJson, type CliIo } from '../io.js';

/** `audit verify --json`: the verdict; `broken_at` and `reason` only when `ok` is false. */
export type AuditVerifyJson = { ok: true; entries: number } | { ok: false; entries: number; broken_at: number; reason: string };

/**
 * `wallet-backend audit verify [--full] [--json]`: walks the operator audit chain from its newest
 * sealed checkpoint (from seq 1 with `--full`) and checks each entry, each link and the sealed
 * head. Progress goes to stderr; the first broken link fails the command (exit code 1), with the
 * JSON verdict still on stdout under `--json`.
 */
export async function auditVerifyCommand(io: CliIo, options: { json?: boolean; full?: boolean } = {}): Promise<void> {
  await withBackend(io, 'admin_audit', async (backend) => {
    const verdict = await backend.setup.verifyAudit({
      full: options.full === true,
      onStart: (seq) => io.err(seq === 0 ? 'verifying from the first entry…' : `verifying from the checkpoint at entry ${seq} (--full walks the whole chain)…`),
      onProgress: (checked) => io.err(`checked ${checked} entries…`),
    });
    if (options.json) {
      const document: AuditVerifyJson = verdict.ok
        ? { ok: true, entries: verdict.entries }
        : { ok: false, entries: verdict.entries, broken_at: verdict.brokenAt, reason: verdict.reason };
      printJson(io, document);
    }
    if (!verdict.ok) {
      throw new CliFailure(`audit chain broken at seq ${verdict.brokenAt}`, [verdict.reason, `${verdict.entries} entries before it verified`]);
    }
    if (!options.json) io.out(`audit chain intact: ${verdict.entries} entr${verdict.entries === 1 ? 'y' : 'ies'} verified.`);
  });
}
