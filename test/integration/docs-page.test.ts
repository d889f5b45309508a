import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../shared/routes';
import { testStack } from '../support/stack';

/**
 * The rendered API reference (GET /docs) in headless Chromium (Debian's package, installed by
 * .ci/run): it loads with no console errors and no request leaving the loopback, shows every
 * operation, and leaves a screenshot in .local/ for a person to look at.
 */
export const screenshotFile = resolve('.local/docs-reference.png');

const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** CHROMIUM_PATH, or Debian's and Ubuntu's package path; missing, the test says how to install it. */
const chromiumPath = (): string => {
  const path = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) => candidate && existsSync(candidate));
  if (!path) throw new Error('This test drives Chromium and found none: install it (Debian/Ubuntu: sudo apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary.');
  return path;
};

let browser: Browser;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: chromiumPath(), args: chromiumFlags, headless: true });
});

afterAll(async () => {
  await browser?.close();
});

describe('GET /docs', () => {
  it('renders every operation with no console errors and nothing fetched from outside the API', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    const consoleErrors: string[] = [];
    const outside: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(testStack().baseUrl) && !url.startsWith('data:') && !url.startsWith(`blob:${testStack().baseUrl}`)) outside.push(url);
    });

    const response = await page.goto(`${testStack().baseUrl}/docs`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    // Redoc renders one operation section per operation, with the id in its anchor.
    await page.waitForSelector('[id^="tag/"][id*="/operation/"]', { timeout: 30_000 });
    const anchors = await page.$$eval('[id^="tag/"][id*="/operation/"]', (elements) => elements.map((element) => element.id));
    const shown = new Set(anchors.map((id) => id.replace(/^.*\/operation\//, '')));
    expect([...routes.map((route) => route.operationId)].filter((id) => !shown.has(id))).toEqual([]);
    await expect(page.title()).resolves.toContain('API reference');

    mkdirSync(resolve('.local'), { recursive: true });
    await page.screenshot({ path: screenshotFile, fullPage: false });
    expect(outside).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
