import 'reflect-metadata';
import { IsString, IsUrl } from 'class-validator';
import { McpServer, metadataStore, Prompt, Sensitive, Tool } from '@typemcp/core';
import { ALL_SPEC_VERSIONS, createTestClient, McpRequestError } from '@typemcp/testing';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { openTelemetry } from '@typemcp/opentelemetry';
import { Telemetry } from './telemetry';

const SECRET = 'sig=TOP-s3cret-4711';

function declareProviders() {
  class LinkInput {
    @Sensitive() @IsUrl() url!: string;
  }
  class KeyArgs {
    @Sensitive() @IsString() key!: string;
  }
  class Links {
    @Tool({ description: 'Saves a signed link' })
    save_link(input: LinkInput): string {
      return `saved ${input.url.length} characters`;
    }

    @Prompt({ description: 'Uses a key' })
    with_key(args: KeyArgs): string {
      return `a key of ${args.key.length} characters`;
    }
  }
  return { Links };
}

let Links: ReturnType<typeof declareProviders>['Links'];
let telemetry: Telemetry;
beforeEach(() => {
  metadataStore.clear();
  ({ Links } = declareProviders());
  telemetry = new Telemetry();
});
afterEach(() => telemetry.shutdown());

/** Everything a span carries that an exporter would send. */
function exported(span: ReadableSpan): string {
  return JSON.stringify({ name: span.name, attributes: span.attributes, status: span.status, events: span.events, links: span.links });
}

describe('a @Sensitive argument in spans', () => {
  it.each(ALL_SPEC_VERSIONS)('at %s: neither a valid nor a refused value reaches a span', async (version) => {
    const server = new McpServer({ name: 'links', version: '1.0.0', providers: [Links] }).plugin(openTelemetry, telemetry.options);
    const client = await createTestClient(server, { protocolVersion: version });
    try {
      await client.callTool('save_link', { url: `https://example.com/a?${SECRET}` });
      let refusal: string;
      try {
        refusal = JSON.stringify(await client.callTool('save_link', { url: `https://${SECRET}` }));
      } catch (error) {
        if (!(error instanceof McpRequestError)) throw error;
        refusal = error.message;
      }
      // The refusal says what is wrong, without the value.
      expect(refusal).toContain('must be a URL');
      expect(refusal).not.toContain(SECRET);
      await client.getPrompt('with_key', { key: SECRET });
    } finally {
      await client.close();
    }

    const calls = telemetry.spans().filter((span) => span.name === 'tools/call save_link');
    expect(calls).toHaveLength(2);
    expect(telemetry.spans().filter((span) => span.name === 'prompts/get with_key')).toHaveLength(1);
    for (const span of telemetry.spans()) expect(exported(span)).not.toContain(SECRET);
  });
});
