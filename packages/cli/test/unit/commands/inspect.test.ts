import { describeSchema, formatInventory } from '../../../src/commands/inspect';
import type { Inventory } from '../../../src/commands/inspect';

const plain = { bold: (t: string) => t, dim: (t: string) => t };

describe('describeSchema', () => {
  it('describes an object schema in one line', () => {
    expect(
      describeSchema({
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'integer' } }, c: { enum: ['x', 'y'] }, d: { type: 'object', properties: { e: { type: ['number', 'null'] } }, required: ['e'] }, f: {} },
        required: ['a'],
      }),
    ).toBe('{ a: string, b?: integer[], c?: "x" | "y", d?: { e: number | null }, f?: any }');
    expect(describeSchema({ type: 'object' })).toBe('{}');
  });
});

describe('formatInventory', () => {
  const inventory: Inventory = {
    serverInfo: { name: 'notes', version: '2.1.0', title: 'Notes' },
    protocolVersion: '2025-11-25',
    capabilities: {},
    instructions: 'Keeps notes.',
    tools: [
      {
        name: 'add_note',
        title: 'Add a note',
        description: 'Save a note',
        inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
        outputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        annotations: { idempotentHint: false },
      },
    ],
    resources: [{ uri: 'notes://all', name: 'all', description: 'Every note', mimeType: 'application/json' }],
    resourceTemplates: [{ uriTemplate: 'notes://notes/{id}', name: 'note', mimeType: 'text/markdown' }],
    prompts: [{ name: 'summarize', description: 'Summarize a note', arguments: [{ name: 'id', description: 'Which note', required: true }, { name: 'style' }] }],
  };

  it('prints one block per kind with each item and its details', () => {
    expect(formatInventory(inventory, plain)).toBe(
      [
        'Notes 2.1.0 (protocol 2025-11-25)',
        'Keeps notes.',
        '',
        'Tools (1)',
        '  add_note  Add a note: Save a note',
        '            input: { title: string }',
        '            output: { id: string }',
        '            annotations: {"idempotentHint":false}',
        '',
        'Resources (1)',
        '  notes://all  all: Every note',
        '               application/json',
        '',
        'Resource templates (1)',
        '  notes://notes/{id}  note',
        '                      text/markdown',
        '',
        'Prompts (1)',
        '  summarize  Summarize a note',
        '             argument id: Which note',
        '             argument style?',
        '',
      ].join('\n'),
    );
  });

  it('says when a list is empty', () => {
    expect(formatInventory({ ...inventory, tools: [], instructions: undefined }, plain)).toContain('Notes 2.1.0 (protocol 2025-11-25)\n\nTools (0)\n\nResources (1)');
  });
});
