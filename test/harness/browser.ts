import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium (nothing here downloads a browser); CI installs it and sets WALLET_CI, so there it must exist. */
export const CHROMIUM = '/usr/bin/chromium';
/** As root on a closed network: no sandbox, and none of Chromium's background connections. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Launches Debian's Chromium for a suite's `before` hook. Without it the suite is skipped, except
 * under WALLET_CI=1, where a missing browser fails the run.
 */
export async function launchChromium(hook: Mocha.Context): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    if (process.env.WALLET_CI === '1') throw new Error(`${CHROMIUM} is missing: CI installs Debian's chromium`);
    hook.skip();
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * Collects a page's problems into `problems`: every uncaught page error and every console error
 * (a CSP violation is one: "Refused to …"), except the console lines `expected` accepts.
 */
export function watchPage(page: Page, problems: string[], expected: (text: string) => boolean = () => false): void {
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !expected(message.text())) problems.push(`console: ${message.text()}`);
  });
}
