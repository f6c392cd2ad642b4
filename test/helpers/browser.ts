/**
 * Debian's Chromium driven by playwright-core (no browser download): headless, no sandbox (tests
 * run as root in CI), no GPU, no background networking, so the only requests are the page's own.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.PLATEN_CHROMIUM ?? '/usr/bin/chromium';

/** Launch Chromium. @throws Error naming the package to install when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install chromium), as .ci/run does`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}
