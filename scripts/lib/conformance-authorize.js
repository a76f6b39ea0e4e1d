// The user's part of the conformance suite's authorization-code-grant scenario: the suite prints
// an authorization URL and waits for the browser at its callback. This waits for that URL in the
// suite's output, signs in to examples/09-signin in headless Chromium and approves, then waits
// until the suite's callback server answered.
//
//   node scripts/lib/conformance-authorize.js SUITE_LOG AUTHORIZE_ENDPOINT CALLBACK USER [ARTIFACTS]
'use strict';

const fs = require('node:fs');
const { runBounded, signInAndApprove } = require('./signin-browser');

const [suiteLog, authorizeEndpoint, callback, user, artifacts] = process.argv.slice(2);
const LIMIT_MS = 60_000;
const STEP_MS = 15_000;

runBounded('conformance-authorize', LIMIT_MS, artifacts, async (page) => {
  let url;
  while (url === undefined) {
    const text = fs.existsSync(suiteLog) ? fs.readFileSync(suiteLog, 'utf8') : '';
    url = text.split('\n').find((line) => line.startsWith(`${authorizeEndpoint}?`));
    // The scenario prints its URL before its callback server listens: wait for both.
    if (url !== undefined && !text.includes('Callback server started')) url = undefined;
    if (url === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await page.goto(url, { timeout: STEP_MS });
  const { asked } = await signInAndApprove(page, user, STEP_MS);
  await page.waitForURL((at) => at.href.startsWith(`${callback}?`), { timeout: STEP_MS });
  // The suite's callback server answers this once it has the redirect.
  await page.getByText('OK. You can close this page.').waitFor({ timeout: STEP_MS });
  const back = new URL(page.url());
  process.stderr.write(`conformance-authorize: signed in as ${user}, approved ${asked.join(', ') || '(no scope listed)'}; back at ${back.origin}${back.pathname} with ${[...back.searchParams.keys()].join(', ')}\n`);
});
