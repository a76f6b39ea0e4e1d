import { IsOptional, IsString } from 'class-validator';
import { Context, Description, McpHeader, Tool } from '@typemcp/core';
import type { ListControl, McpServer } from '@typemcp/core';
import { ConfirmForm, textOf } from './InputRequiredTools';

// ---- the server whose lists the trigger tools change --------------------------------------

let listsOwner: McpServer | undefined;

/**
 * Names the server whose tool and prompt lists test_trigger_tool_change and
 * test_trigger_prompt_change change; createConformanceServer calls it. One server per
 * process is all the suite needs (main.ts); a later server takes the place of an earlier one.
 */
export function changeListsOf(server: McpServer): McpServer {
  listsOwner = server;
  return server;
}

function lists(): McpServer {
  if (!listsOwner) throw new Error('StatelessTools: no server to change the lists of; create it with createConformanceServer()');
  return listsOwner;
}

/** Hides the item when it is listed, lists it again when not; true when it is listed now. */
function toggle(list: ListControl, name: string): boolean {
  if (list.has(name)) {
    list.disable(name);
    return false;
  }
  list.enable(name);
  return true;
}

/** The tool test_trigger_tool_change hides and lists again. */
export const TOGGLED_TOOL = 'test_toggled_tool';
/** The prompt test_trigger_prompt_change hides and lists again (ConformancePrompts). */
export const TOGGLED_PROMPT = 'test_toggled_prompt';

// ---- inputs ------------------------------------------------------------------------------

/** SEP-2243: `region` travels in the body and, mirrored, in the `Mcp-Param-Region` header. */
export class CustomHeaderInput {
  @IsString() @McpHeader('Region') @Description('A region, mirrored in the Mcp-Param-Region header')
  region!: string;

  @IsOptional() @IsString() @Description('Free text, not mirrored in a header')
  query?: string;
}

// ---- tools ----------------------------------------------------------------------------------

/**
 * The tools the 2026-07-28 scenarios other than input-required-result-* call: the
 * diagnostics of server-stateless (SEP-2575) and the x-mcp-header tool of
 * http-custom-header-server-validation (SEP-2243).
 */
export class StatelessTools {
  // Asks the client's model without looking at the client's capabilities first: a request
  // that declared no `sampling` is refused by the runtime (-32021, HTTP 400).
  @Tool({ name: 'test_missing_capability', description: "Asks the client's model without checking the client declared sampling" })
  async missingCapability(ctx: Context): Promise<string> {
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
      maxTokens: 20,
    });
    return `LLM response: ${textOf(answer)}`;
  }

  // Reports progress (only when the request asked for it), then needs the user: the answer
  // on the request's stream may hold notifications and the input_required result, never a
  // request to the client.
  @Tool({ name: 'test_streaming_elicitation', description: 'Reports progress, then asks the user for a confirmation (elicitation)' })
  async streamingElicitation(ctx: Context): Promise<string> {
    ctx.progress(0, 2, 'Asking the user');
    const answer = await ctx.elicit('Please confirm to continue', ConfirmForm, { key: 'confirm' });
    ctx.progress(1, 2, 'Answered');
    return `Confirmed: ${answer.action === 'accept' ? answer.content.ok : answer.action}`;
  }

  // The scenario calls it without `_meta["io.modelcontextprotocol/logLevel"]`: none of these
  // may reach the client.
  @Tool({ name: 'test_logging_tool', description: 'Logs at debug, info and warning level, then answers' })
  loggingTool(ctx: Context): string {
    ctx.log.debug('test_logging_tool: debug message', 'conformance');
    ctx.log.info('test_logging_tool: info message', 'conformance');
    ctx.log.warning('test_logging_tool: warning message', 'conformance');
    return 'Logged three messages (debug, info, warning)';
  }

  @Tool({ name: 'test_trigger_tool_change', description: `Hides ${TOGGLED_TOOL}, or lists it again: tools/list changes` })
  triggerToolChange(): string {
    return `${TOGGLED_TOOL} is ${toggle(lists().tools, TOGGLED_TOOL) ? 'listed again' : 'hidden'}`;
  }

  @Tool({ name: 'test_trigger_prompt_change', description: `Hides ${TOGGLED_PROMPT}, or lists it again: prompts/list changes` })
  triggerPromptChange(): string {
    return `${TOGGLED_PROMPT} is ${toggle(lists().prompts, TOGGLED_PROMPT) ? 'listed again' : 'hidden'}`;
  }

  @Tool({ name: TOGGLED_TOOL, description: 'Listed or not, as test_trigger_tool_change toggles it' })
  toggled(): string {
    return `${TOGGLED_TOOL} is listed`;
  }

  // The scenario finds this tool by the first string property with "x-mcp-header" and
  // checks the runtime compares the Mcp-Param-Region header (literal or =?base64?…?=) with
  // `region` in the body: a call is served only when they agree.
  @Tool({ name: 'test_custom_headers', description: 'Echoes a region that the client mirrors in the Mcp-Param-Region header' })
  customHeaders(input: CustomHeaderInput): string {
    return input.query === undefined ? `Region: ${input.region}` : `Region: ${input.region}; query: ${input.query}`;
  }
}
