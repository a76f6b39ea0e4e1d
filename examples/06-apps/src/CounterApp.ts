import fs from 'node:fs';
import path from 'node:path';
import { IsInt, Max, Min } from 'class-validator';
import { inject, injectable } from 'tsyringe';
import { Description, Resource, Tool } from '@typemcp/core';
import type { AppCsp } from '@typemcp/core';
import { CounterStore } from './counter';

export const COUNTER_UI = 'ui://counter/app.html';

/** Where `typemcp ui` writes the UI (npm run build:ui): the page as one document, and its CSP. */
export const UI_DIR = path.join(__dirname, '..', 'dist', 'ui');

class StepInput {
  @IsInt() @Min(-100) @Max(100) @Description('How much to add (negative to subtract)') step!: number;
}

interface CounterResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: { count: number };
}

/**
 * A counter with a UI: hosts that show MCP Apps render the page of `ui://counter/app.html`
 * beside `show_counter`'s result; its buttons call `increment`. Other clients get the text.
 */
@injectable()
export class CounterApp {
  constructor(@inject(CounterStore) private readonly counter: CounterStore) {}

  @Tool({ description: 'Shows the counter, with buttons to change it', annotations: { readOnlyHint: true }, ui: { resourceUri: COUNTER_UI } })
  show_counter(): CounterResult {
    return this.result();
  }

  // Model and app may both call it: the buttons do, and so may the agent.
  @Tool({ description: 'Adds a step to the counter', ui: { resourceUri: COUNTER_UI, visibility: ['model', 'app'] } })
  increment(input: StepInput): CounterResult {
    this.counter.add(input.step);
    return this.result();
  }

  @Tool({ description: 'Sets the counter back to 0; only the UI offers it', ui: { resourceUri: COUNTER_UI, visibility: ['app'] } })
  reset(): CounterResult {
    this.counter.add(-this.counter.value);
    return this.result();
  }

  @Resource({ uri: COUNTER_UI, name: 'counter', description: 'The counter UI', ui: { prefersBorder: true, csp: uiCsp() } })
  page(): string {
    return fs.readFileSync(path.join(UI_DIR, 'counter.html'), 'utf8');
  }

  private result(): CounterResult {
    const count = this.counter.value;
    return { content: [{ type: 'text', text: `The counter is at ${count}.` }], structuredContent: { count } };
  }
}

/** The CSP `typemcp ui` derived from what the page loads; none before the UI is built. */
function uiCsp(): AppCsp {
  const file = path.join(UI_DIR, 'counter.csp.json');
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as AppCsp) : {};
}
