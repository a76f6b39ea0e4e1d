/**
 * The counter app in a real browser: headless Chromium runs a host page with the official MCP
 * client and ext-apps' AppBridge against the example server over HTTP on 127.0.0.1, and renders
 * the app in a sandbox on another origin under the CSP from the resource's `_meta.ui.csp`.
 * Clicks in the UI call the server's tools; results the host pushes update the UI.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildUi } from '@typemcp/cli';
import fs from 'node:fs';
import { McpServer, Resource, Tool } from '@typemcp/core';
import { launchChromium, startAppsHost } from '../../../test-support/appsHost';
import type { AppsHost } from '../../../test-support/appsHost';
import { COUNTER_UI, UI_DIR } from '../src/CounterApp';
import { createAppsServer } from '../src/server';

jest.setTimeout(90_000);

/** What the host page (test-support/appsHost/host.js) keeps on window, as the browser sees it. */
interface HostWindow {
  __host: {
    status: string;
    error?: string;
    protocolVersion?: string;
    tools?: string[];
    resource?: Record<string, unknown>;
    callTool(name: string, args?: object): Promise<{ structuredContent: { count: number } }>;
    runTool(name: string, args?: object): Promise<unknown>;
  };
}

/** The part of the app frame's window the CSP check uses. */
interface AppWindow {
  document: { addEventListener(type: 'securitypolicyviolation', listener: (event: { violatedDirective: string }) => void): void };
}

let browser: Browser;
beforeAll(async () => {
  await buildUi({ page: path.join(__dirname, '..', 'ui', 'counter.html'), outdir: UI_DIR });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe.each(['legacy', 'modern'] as const)('the counter app in Chromium (%s protocol)', (era) => {
  let server: McpServer;
  let host: AppsHost;
  let page: Page;
  const pageErrors: string[] = [];

  beforeEach(async () => {
    server = createAppsServer();
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false });
    host = await startAppsHost(url);
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(host.pageUrl(era));
    await page.waitForFunction(() => {
      const state = (globalThis as unknown as HostWindow).__host;
      return state.status === 'ready' || state.status.startsWith('error');
    });
  });
  afterEach(async () => {
    await page?.close();
    await host?.close();
    await server?.close();
  });

  const hostState = () => page.evaluate(() => (globalThis as unknown as HostWindow).__host);
  const app = () => page.frameLocator('#app-frame').frameLocator('#app');
  /** Waits until the UI shows this count (a wrong one times out, naming what it showed). */
  const countShows = async (count: string) => {
    try {
      await app().locator('#count').filter({ hasText: new RegExp(`^${count}$`) }).waitFor({ timeout: 15_000 });
    } catch {
      throw new Error(`the app shows ${await app().locator('#count').textContent()} (status: ${await app().locator('#status').textContent()}), not ${count}`);
    }
  };

  it('renders the tool result the host hands it, calls tools on clicks, and shows results the host pushes', async () => {
    const state = await hostState();
    expect({ status: state.status, error: state.error }).toEqual({ status: 'ready', error: undefined });
    expect(state.protocolVersion).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
    // The host saw the app-only tool: it declared that it shows apps.
    expect(state.tools).toEqual(['show_counter', 'increment', 'reset']);
    expect(state.resource).toMatchObject({ uri: 'ui://counter/app.html', mimeType: 'text/html;profile=mcp-app', meta: { ui: { prefersBorder: true, csp: {} } } });

    await countShows('0');
    expect(await app().locator('#text').textContent()).toBe('The counter is at 0.');
    expect(await app().locator('#status').textContent()).toBe('ready');

    // A click: the app asks the host, the host calls the server's increment.
    await app().locator('#plus').click();
    await countShows('1');
    await app().locator('#plus').click();
    await countShows('2');
    const seenByServer = await page.evaluate(() => (globalThis as unknown as HostWindow).__host.callTool('show_counter'));
    expect(seenByServer.structuredContent).toEqual({ count: 2 });

    // The model runs a tool; the host pushes its input and result to the app.
    await page.evaluate(() => (globalThis as unknown as HostWindow).__host.runTool('increment', { step: 40 }));
    await countShows('42');
    expect(await app().locator('#text').textContent()).toBe('The counter is at 42.');

    // An app-only tool, called by the UI.
    await app().locator('#reset').click();
    await countShows('0');
    expect(pageErrors).toEqual([]);
  });

  it('runs the app under the CSP from its resource: an origin it did not declare stays out of reach', async () => {
    expect((await hostState()).status).toBe('ready');
    const reached = await app()
      .locator('body')
      .evaluate(async (_body, origin) => {
        const violations: string[] = [];
        const { document } = globalThis as unknown as AppWindow;
        document.addEventListener('securitypolicyviolation', (event) => violations.push(event.violatedDirective));
        try {
          await fetch(origin);
          return { fetched: true, violations };
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 50));
          return { fetched: false, violations };
        }
      }, host.undeclaredOrigin);
    expect(reached).toEqual({ fetched: false, violations: ['connect-src'] });
  });
});

/** The harness itself: it must catch a wrong resource, and honour what a resource declares. */
describe('the host page with a control server', () => {
  let server: McpServer;
  let host: AppsHost;
  let page: Page;
  let declared = '';

  async function serve(provider: new () => unknown): Promise<string> {
    server = new McpServer({ name: 'control', version: '1', providers: [provider] });
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false });
    host = await startAppsHost(url);
    declared = host.undeclaredOrigin;
    page = await browser.newPage();
    await page.goto(host.pageUrl('legacy'));
    await page.waitForFunction(() => {
      const state = (globalThis as unknown as HostWindow).__host;
      return state.status === 'ready' || state.status.startsWith('error');
    });
    return page.evaluate(() => (globalThis as unknown as HostWindow).__host.status);
  }
  afterEach(async () => {
    await page?.close();
    await host?.close();
    await server?.close();
  });

  const html = () => fs.readFileSync(path.join(UI_DIR, 'counter.html'), 'utf8');
  const counterResult = () => ({ content: [{ type: 'text', text: 'The counter is at 0.' }], structuredContent: { count: 0 } });

  it('refuses a UI resource served with another MIME type', async () => {
    class WrongType {
      @Tool({ description: 'x', ui: { resourceUri: COUNTER_UI } })
      show_counter() {
        return counterResult();
      }

      @Resource({ uri: COUNTER_UI, mimeType: 'text/html', ui: {} })
      page(): string {
        return html();
      }
    }
    expect(await serve(WrongType)).toBe('error: Unsupported MIME type: text/html');
  });

  it('lets the app reach an origin its resource declares in csp.connectDomains', async () => {
    class Declares {
      @Tool({ description: 'x', ui: { resourceUri: COUNTER_UI } })
      show_counter() {
        return counterResult();
      }

      @Resource({ uri: COUNTER_UI, ui: {} })
      page() {
        // The origin is known once the host runs: the content item's own _meta.ui says it.
        return { contents: [{ uri: COUNTER_UI, text: html(), _meta: { ui: { csp: { connectDomains: [declared] } } } }] };
      }
    }
    expect(await serve(Declares)).toBe('ready');
    const fetched = await page
      .frameLocator('#app-frame')
      .frameLocator('#app')
      .locator('body')
      .evaluate(async (_body, origin) => (await fetch(origin)).text(), host.undeclaredOrigin);
    expect(fetched).toBe('reached');
  });
});
