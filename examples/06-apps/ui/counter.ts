// The counter's UI: shown by the host beside the show_counter tool. It renders the tool
// results the host hands it and calls the server's `increment` tool when a button is clicked.
import { App, PostMessageTransport } from '@modelcontextprotocol/ext-apps';

interface CounterResult {
  structuredContent?: { count?: number };
  content?: Array<{ type: string; text?: string }>;
}

const element = (id: string) => document.getElementById(id) as HTMLElement;

function show(result: CounterResult): void {
  element('count').textContent = String(result.structuredContent?.count ?? '?');
  element('text').textContent = (result.content ?? []).map((block) => block.text ?? '').join(' ');
}

async function main(): Promise<void> {
  const app = new App({ name: 'counter', version: '1.0.0' }, {});
  // Before connecting, so the host's first tool result is not missed.
  app.ontoolresult = (result) => show(result as CounterResult);
  element('status').textContent = 'connecting';
  await app.connect(new PostMessageTransport(window.parent, window.parent));
  element('status').textContent = 'ready';

  const call = async (name: string, args: Record<string, unknown>) => {
    element('status').textContent = `calling ${name}`;
    try {
      show((await app.callServerTool({ name, arguments: args })) as CounterResult);
      element('status').textContent = 'ready';
    } catch (error) {
      element('status').textContent = `${name} failed: ${(error as Error).message}`;
    }
  };
  element('plus').addEventListener('click', () => void call('increment', { step: 1 }));
  element('minus').addEventListener('click', () => void call('increment', { step: -1 }));
  // reset is app-only: the model never sees it, the UI calls it.
  element('reset').addEventListener('click', () => void call('reset', {}));
}

main().catch((error: Error) => {
  element('status').textContent = `error: ${error.message}`;
});
