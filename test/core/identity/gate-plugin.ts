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

/** A gate with both phases: each records its attempts and refuses while told to; precheck can be held open. */
export function phasedGate(name = 'phased-gate') {
  const state = {
    prechecks: [] as RegistrationAttempt[],
    admits: [] as RegistrationAttempt[],
    refusePrecheck: false,
    refuseAdmit: false,
    /** While set, precheck waits for it (after announcing itself through `entered`). */
    hold: undefined as Promise<void> | undefined,
    entered: undefined as (() => void) | undefined,
    plugin: {
      name,
      setup(ctx) {
        ctx.registration.addGate({
          name,
          precheck: async (attempt) => {
            state.prechecks.push(attempt);
            state.entered?.();
            if (state.hold !== undefined) await state.hold;
            if (state.refusePrecheck) throw new WalletError('precheck_refused', 400, 'Refused by the precheck.');
          },
          admit: async (attempt) => {
            state.admits.push(attempt);
            if (state.refuseAdmit) throw new WalletError('admit_refused', 400, 'Refused by admit.');
          },
        });
      },
    } as WalletPlugin,
  };
  return state;
}
