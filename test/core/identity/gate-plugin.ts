import { WalletError, type RegistrationAttempt, type WalletPlugin } from '@wallet/backend-core';

/** A registration gate that records every attempt and refuses while `refuse` is set. */
export function recordingGate(): { plugin: WalletPlugin; attempts: RegistrationAttempt[]; refuse: boolean } {
  const state = {
    attempts: [] as RegistrationAttempt[],
    refuse: false,
    plugin: {
      name: 'test-gate',
      setup(ctx) {
        ctx.registration.addGate({
          name: 'test-gate',
          admit: async (attempt) => {
            state.attempts.push(attempt);
            if (state.refuse) throw new WalletError('gate_refused', 400, 'Refused by the test gate.');
          },
        });
      },
    } as WalletPlugin,
  };
  return state;
}
