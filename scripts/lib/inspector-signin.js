// A user of the official MCP Inspector's web UI, in headless Chromium: connects to
// examples/09-signin over Streamable HTTP (the server the Inspector was launched with), follows
// the Inspector's own OAuth flow through the example's login and consent pages, then checks the
// tool list and calls list_notes as the signed-in user.
//
//   node scripts/lib/inspector-signin.js INSPECTOR_URL MCP_URL USER [ARTIFACTS]
'use strict';

const { runBounded, signInAndApprove } = require('./signin-browser');

const [inspectorUrl, mcpUrl, user, artifacts] = process.argv.slice(2);
const LIMIT_MS = 120_000;
const STEP_MS = 20_000;
/** The example's tools, by the scope each needs: the server lists only those a token may call. */
const TOOLS_BY_SCOPE = { 'notes:read': 'list_notes', 'notes:write': 'add_note' };

const say = (line) => process.stderr.write(`inspector-signin: ${line}\n`);

runBounded('inspector-signin', LIMIT_MS, artifacts, async (page) => {
  const inspector = new URL(inspectorUrl).origin;
  const mcp = new URL(mcpUrl);
  await page.goto(inspectorUrl, { timeout: STEP_MS });

  // The server card the launcher's --transport http --server-url made.
  const card = page.locator('div', { hasText: mcpUrl }).filter({ has: page.getByRole('switch') }).last();
  await card.getByText('Streamable HTTP', { exact: true }).waitFor({ timeout: STEP_MS });
  await card.getByText('Disconnected', { exact: true }).waitFor({ timeout: STEP_MS });
  // Mantine draws the switch over its input: the click goes to the input itself.
  await card.getByRole('switch').click({ force: true, timeout: STEP_MS });

  // Unauthorized, the Inspector discovers the example's authorization server and sends the browser there.
  await page.waitForURL((url) => url.origin === mcp.origin && url.pathname === '/oauth/authorize', { timeout: STEP_MS });
  const request = new URL(page.url()).searchParams;
  const clientId = request.get('client_id') ?? '';
  const registration = /^https?:/.test(clientId) ? 'a client ID metadata document' : 'DCR';
  say(`the Inspector asks ${mcp.origin}/oauth/authorize for scope "${request.get('scope')}", resource ${request.get('resource')}, redirect ${request.get('redirect_uri')}, as ${registration} client ${clientId}`);
  if (request.get('redirect_uri') !== `${inspector}/oauth/callback`) throw new Error(`the redirect URI is ${request.get('redirect_uri')}, not ${inspector}/oauth/callback`);
  if (request.get('resource') !== mcpUrl) throw new Error(`the resource is ${request.get('resource')}, not ${mcpUrl}`);

  const { asked } = await signInAndApprove(page, user, STEP_MS);
  await page.waitForURL((url) => url.origin === inspector && url.pathname === '/oauth/callback', { timeout: STEP_MS });
  await page.getByText('Connected', { exact: true }).waitFor({ timeout: STEP_MS });
  say(`signed in as ${user}, approved ${asked.join(', ')}: connected`);

  await page.getByText('Tools', { exact: true }).first().click({ timeout: STEP_MS });
  const heading = page.getByRole('heading', { name: /^Tools \(\d+\)$/ });
  await heading.waitFor({ timeout: STEP_MS });
  const list = page.locator('div', { has: heading }).filter({ has: page.getByPlaceholder('Search tools...') }).last();
  const item = list.locator('button[data-variant="listItem"]');
  await item.first().waitFor({ timeout: STEP_MS });
  const tools = (await item.allTextContents()).map((name) => name.trim()).sort();
  const granted = asked.map((line) => line.split(' ')[0]);
  const expected = granted.map((scope) => TOOLS_BY_SCOPE[scope]).filter(Boolean).sort();
  if (JSON.stringify(tools) !== JSON.stringify(expected)) throw new Error(`the Inspector lists ${JSON.stringify(tools)}; with ${granted.join(', ')} granted the example lists ${JSON.stringify(expected)}`);
  say(`the Inspector lists ${tools.join(', ')} (${(await heading.textContent()).trim()}), the tools of ${granted.join(', ')}`);

  // The token names the user: list_notes answers for them.
  await item.filter({ hasText: 'list_notes' }).click({ timeout: STEP_MS });
  await page.getByRole('button', { name: 'Execute Tool' }).click({ timeout: STEP_MS });
  const answer = `${user} has no notes yet.`;
  await page.getByText(answer, { exact: true }).waitFor({ timeout: STEP_MS });
  say(`list_notes, called from the Inspector, answers "${answer}"`);
});
