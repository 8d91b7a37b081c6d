import type { WalletError } from '../../errors/index.js';

/**
 * POST a JSON body and read a JSON answer within `timeoutMs`. Network failures, timeouts and
 * unparseable bodies become `unavailable()`; the status is returned for the caller to judge.
 */
export async function postJson(url: string, body: unknown, timeoutMs: number, unavailable: () => WalletError, signal?: AbortSignal): Promise<{ status: number; body: unknown }> {
  try {
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      redirect: 'error',
    });
    const text = await response.text();
    let parsed: unknown = null;
    if (text !== '') parsed = JSON.parse(text);
    return { status: response.status, body: parsed };
  } catch {
    throw unavailable();
  }
}
