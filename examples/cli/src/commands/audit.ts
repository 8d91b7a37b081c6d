import { withBackend } from '../backend.js';
import { CliFailure, type CliIo } from '../io.js';

/**
 * `wallet-backend audit verify`: walks the operator audit chain from seq 1 and checks each link
 * and the sealed head. Progress goes to stderr; the first broken link fails the command.
 */
export async function auditVerifyCommand(io: CliIo): Promise<void> {
  await withBackend(io, 'admin_audit', async (backend) => {
    const verdict = await backend.setup.verifyAudit((checked) => io.err(`checked ${checked} entries…`));
    if (!verdict.ok) {
      throw new CliFailure(`audit chain broken at seq ${verdict.brokenAt}`, [verdict.reason, `${verdict.entries} entries before it verified`]);
    }
    io.out(`audit chain intact: ${verdict.entries} entr${verdict.entries === 1 ? 'y' : 'ies'} verified.`);
  });
}
