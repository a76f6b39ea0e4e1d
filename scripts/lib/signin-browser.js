// Headless Chromium for the scripts that sign in to examples/09-signin as a user would
// (scripts/conformance-authorization.sh, scripts/inspector-signin.sh). The same browser
// settings as test-support/appsHost.ts launchChromium, which is TypeScript and so not loadable here.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/** Chromium, headless, without its own sandbox (CI runs as root) or background connections. */
async function launchChromium() {
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  if (!fs.existsSync(executablePath)) {
    throw new Error(`Chromium is not installed at ${executablePath}: install the Debian package (apt-get install chromium) or set CHROMIUM`);
  }
  const { chromium } = require('playwright-core');
  const args = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
  return chromium.launch({ executablePath, headless: true, args });
}

/**
 * A browser context that reaches 127.0.0.1 and localhost only: pages may name other hosts
 * (the Inspector's web fonts), and the machine's network ends at loopback.
 */
async function loopbackContext(browser, options = {}) {
  const context = await browser.newContext(options);
  await context.route('**/*', (route) => {
    const { protocol, hostname } = new URL(route.request().url());
    const local = hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';
    return local || protocol === 'data:' || protocol === 'blob:' ? route.continue() : route.abort('blockedbyclient');
  });
  return context;
}

/** The example's development login (alice/alice, bob/bob), then Approve on its consent page. */
async function signInAndApprove(page, user, timeout) {
  await page.getByLabel('Username').fill(user, { timeout });
  await page.getByLabel('Password').fill(user, { timeout });
  await page.getByRole('button', { name: 'Sign in' }).click({ timeout });
  const approve = page.getByRole('button', { name: 'Approve' });
  await approve.waitFor({ timeout });
  const asked = (await page.locator('#scopes li').allTextContents()).map((text) => text.trim());
  await approve.click({ timeout });
  return { asked };
}

/**
 * Runs `body(page)` in a fresh context, failing after `limitMs`; on failure saves a screenshot
 * and the page's text into `artifacts` (when given) and exits 1.
 */
async function runBounded(name, limitMs, artifacts, body) {
  let browser;
  let page;
  const timer = setTimeout(() => fail(new Error(`not done within ${limitMs / 1000} s`)), limitMs);
  async function fail(error) {
    clearTimeout(timer);
    process.stderr.write(`${name}: ${error.stack ?? error}\n`);
    if (page !== undefined && artifacts) {
      try {
        fs.mkdirSync(artifacts, { recursive: true });
        process.stderr.write(`${name}: the page was at ${page.url()}; screenshot and text in ${artifacts}\n`);
        await page.screenshot({ path: path.join(artifacts, `${name}.png`), timeout: 5_000 });
        fs.writeFileSync(path.join(artifacts, `${name}.txt`), await page.locator('body').innerText({ timeout: 5_000 }));
      } catch {
        // The browser may be what failed.
      }
    }
    await browser?.close().catch(() => undefined);
    process.exit(1);
  }
  try {
    browser = await launchChromium();
    const context = await loopbackContext(browser, { viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    await body(page);
    clearTimeout(timer);
    await browser.close();
  } catch (error) {
    await fail(error);
  }
}

module.exports = { launchChromium, loopbackContext, signInAndApprove, runBounded };
