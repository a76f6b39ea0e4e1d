import { IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString } from 'class-validator';
import { Context, Description, elicitationSchemaFor, EnumTitles, Title, Tool, ToolError } from '@typemcp/core';
import { RED_PIXEL_PNG, RED_PIXEL_PNG_BASE64, sleep, TINY_WAV } from './fixtures';

// ---- inputs ------------------------------------------------------------------------------

export class SamplingInput {
  @IsString() @Description('The prompt to send to the LLM')
  prompt!: string;
}

export class ElicitationInput {
  @IsString() @Description('The message to show the user')
  message!: string;
}


// ---- elicitation forms (DTO → requestedSchema) --------------------------------------------

export class UserInfo {
  @IsString() @Description("User's response")
  username!: string;

  @IsString() @Description("User's email address")
  email!: string;
}

/** SEP-1034: every primitive type with a default (the field initializers). */
export class DefaultsForm {
  @IsString() name: string = 'John Doe';
  @IsInt() age: number = 30;
  @IsNumber() score: number = 95.5;
  @IsIn(['active', 'inactive', 'pending']) status: string = 'active';
  @IsBoolean() verified: boolean = true;
}

/** SEP-1330: the enum variants of elicitation schemas. */
export class EnumsForm {
  @Title('Untitled single-select')
  @IsIn(['option1', 'option2', 'option3'])
  untitledSingle!: string;

  @Title('Titled single-select')
  @IsIn(['value1', 'value2', 'value3'])
  @EnumTitles({ value1: 'First Option', value2: 'Second Option', value3: 'Third Option' })
  titledSingle!: string;

  @Title('Untitled multi-select')
  @IsArray() @IsIn(['option1', 'option2', 'option3'], { each: true })
  untitledMulti!: string[];

  @Title('Titled multi-select')
  @IsArray() @IsIn(['value1', 'value2', 'value3'], { each: true })
  @EnumTitles({ value1: 'First Choice', value2: 'Second Choice', value3: 'Third Choice' })
  titledMulti!: string[];
}

/** The DTO-built form plus the legacy titled enum (`enum` + `enumNames`). */
const ENUMS_FORM_SCHEMA = (version: string): Record<string, unknown> => {
  const base = elicitationSchemaFor(EnumsForm, version) as { properties: Record<string, unknown>; required?: string[] };
  return {
    ...base,
    properties: {
      ...base.properties,
      legacyEnum: {
        type: 'string',
        title: 'Legacy titled single-select',
        enum: ['opt1', 'opt2', 'opt3'],
        enumNames: ['Option One', 'Option Two', 'Option Three'],
      },
    },
    required: [...(base.required ?? []), 'legacyEnum'],
  };
};

const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

// ---- tools ----------------------------------------------------------------------------------

/** The tools the conformance scenarios call, by the names they call them. */
export class ConformanceTools {
  @Tool({ name: 'test_simple_text', description: 'Returns a simple text response' })
  simpleText(): string {
    return 'This is a simple text response for testing.';
  }

  @Tool({ name: 'test_image_content', description: 'Returns image content (a 1x1 red PNG)', mimeType: 'image/png' })
  imageContent(): Uint8Array {
    return RED_PIXEL_PNG;
  }

  @Tool({ name: 'test_audio_content', description: 'Returns audio content (a tiny WAV)', mimeType: 'audio/wav' })
  audioContent(): Uint8Array {
    return TINY_WAV;
  }

  @Tool({ name: 'test_embedded_resource', description: 'Returns an embedded text resource' })
  embeddedResource() {
    return {
      content: [
        {
          type: 'resource',
          resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
        },
      ],
    };
  }

  @Tool({ name: 'test_multiple_content_types', description: 'Returns text, image and resource content together' })
  multipleContentTypes() {
    return {
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: RED_PIXEL_PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
        },
      ],
    };
  }

  @Tool({ name: 'test_tool_with_logging', description: 'Sends three info log messages while it runs' })
  async withLogging(ctx: Context): Promise<string> {
    ctx.log.info('Tool execution started', 'conformance');
    await sleep(50);
    ctx.log.info('Tool processing data', 'conformance');
    await sleep(50);
    ctx.log.info('Tool execution completed', 'conformance');
    return 'Tool with logging executed successfully';
  }

  @Tool({ name: 'test_tool_with_progress', description: 'Reports progress 0, 50 and 100 of 100' })
  async withProgress(ctx: Context): Promise<string> {
    ctx.progress(0, 100);
    await sleep(50);
    ctx.progress(50, 100);
    await sleep(50);
    ctx.progress(100, 100);
    return 'Tool with progress executed successfully';
  }

  @Tool({ name: 'test_error_handling', description: 'Always fails with a tool error' })
  errorHandling(): never {
    throw new ToolError('This tool intentionally returns an error for testing');
  }

  // The scenario (server-sse-polling) would like the server to close the request's SSE stream
  // before the result is ready, and deliver the result on the client's GET reconnection with
  // Last-Event-ID. No public API lets a handler close its stream, so this answers normally.
  @Tool({ name: 'test_reconnection', description: 'Tests SSE stream disconnection and client reconnection (SEP-1699)' })
  async reconnection(): Promise<string> {
    await sleep(100);
    return 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.';
  }

  @Tool({ name: 'test_sampling', description: "Asks the client's LLM (sampling/createMessage) and returns its answer" })
  async sampling(input: SamplingInput, ctx: Context): Promise<string> {
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: input.prompt } }],
      maxTokens: 100,
    });
    const blocks = Array.isArray(answer.content) ? answer.content : [answer.content];
    const text = blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
    return `LLM response: ${text}`;
  }

  @Tool({ name: 'test_elicitation', description: 'Asks the user for a username and an email (elicitation/create)' })
  async elicitation(input: ElicitationInput, ctx: Context): Promise<string> {
    const answer = await ctx.elicit(input.message, UserInfo);
    return `User response: ${describeAnswer(answer)}`;
  }

  @Tool({ name: 'test_elicitation_sep1034_defaults', description: 'Elicitation with a default for every primitive type (SEP-1034)' })
  async elicitationDefaults(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Please review and update the form fields with defaults', DefaultsForm);
    return `Elicitation completed: ${describeAnswer(answer)}`;
  }

  // The scenario also wants the deprecated `enum` + `enumNames` form, which DTO-built forms
  // never produce for 2025-11-25 clients: this form is written by hand from the DTO's schema.
  @Tool({ name: 'test_elicitation_sep1330_enums', description: 'Elicitation with every enum variant (SEP-1330)' })
  async elicitationEnums(ctx: Context): Promise<string> {
    const requestedSchema = ENUMS_FORM_SCHEMA(ctx.protocolVersion);
    const answer = await ctx.elicit('Please select options from the enum fields', { requestedSchema });
    return `Elicitation completed: ${describeAnswer(answer)}`;
  }

  // The scenario checks that "$schema" and "$defs" reach the client as written.
  @Tool({ name: 'json_schema_2020_12_tool', description: 'Tool with JSON Schema 2020-12 features', inputSchema: JSON_SCHEMA_2020_12_INPUT })
  jsonSchema2020(input: Record<string, unknown>): string {
    return `Received ${JSON.stringify(input)}`;
  }
}

function describeAnswer(answer: { action: string; content?: unknown }): string {
  return answer.action === 'accept' ? `action=accept, content=${JSON.stringify(answer.content)}` : `action=${answer.action}`;
}
