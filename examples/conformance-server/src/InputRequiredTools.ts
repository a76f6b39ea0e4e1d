import { IsBoolean, IsString } from 'class-validator';
import { Context, Description, Tool } from '@typemcp/core';
import type { ElicitationResult, SampleResult } from '@typemcp/core';

// The input_required scenarios (SEP-2322, protocol 2026-07-28). Each tool asks the client
// through ctx.elicit / ctx.sample / ctx.roots, naming the question with `key`: a 2026-07-28
// request is answered with `resultType: "input_required"` and the questions under those keys
// in `inputRequests`, and the retry that carries `inputResponses` (and the `requestState`)
// runs the tool again with the answers. A 2025-11-25 session gets the same questions as
// requests to the client over its connection. The tools do not know which happened.

// ---- elicitation forms (DTO → requestedSchema) --------------------------------------------

/** `{ name: string }`, required: the form of `user_name` and `step1`. */
export class NameForm {
  @IsString() @Description('Your name')
  name!: string;
}

/** `{ color: string }`, required: the form of `step2`. */
export class ColorForm {
  @IsString() @Description('Your favorite color')
  color!: string;
}

/** `{ ok: boolean }`, required: the form of `confirm`. */
export class ConfirmForm {
  @IsBoolean() @Description('Confirm?')
  ok!: boolean;
}

// ---- sampling requests -----------------------------------------------------------------------

const CAPITAL_QUESTION = {
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'What is the capital of France?' } }],
  maxTokens: 100,
};

const GREETING_REQUEST = {
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'Generate a greeting' } }],
  maxTokens: 50,
};

// ---- tools ----------------------------------------------------------------------------------

/** The tools of the input-required-result-* scenarios, by the names they call them. */
export class InputRequiredTools {
  // Also called by input-required-result-result-type, -missing-input-response (a wrong key:
  // asked again), -ignore-extra-params (extra keys: ignored) and -validate-input (an answer
  // that is not an ElicitResult: refused).
  @Tool({ name: 'test_input_required_result_elicitation', description: "Asks the user's name (elicitation, key user_name) and greets them" })
  async elicitation(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('What is your name?', NameForm, { key: 'user_name' });
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `No name given (${answer.action})`;
  }

  @Tool({ name: 'test_input_required_result_sampling', description: "Asks the client's model for the capital of France (sampling, key capital_question)" })
  async sampling(ctx: Context): Promise<string> {
    const answer = await ctx.sample(CAPITAL_QUESTION, { key: 'capital_question' });
    return `LLM response: ${textOf(answer)}`;
  }

  @Tool({ name: 'test_input_required_result_list_roots', description: "Asks for the client's roots (roots/list, key client_roots) and lists them" })
  async listRoots(ctx: Context): Promise<string> {
    const roots = await ctx.roots({ key: 'client_roots' });
    return `Client roots: ${describeRoots(roots)}`;
  }

  // The scenario wants the answer to say "state-ok": the retry was only run because the
  // runtime accepted the requestState it echoed.
  @Tool({ name: 'test_input_required_result_request_state', description: 'Asks for a confirmation (elicitation, key confirm); the result shows the request state came back intact' })
  async requestState(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Please confirm', ConfirmForm, { key: 'confirm' });
    return `state-ok: ${answer.action === 'accept' ? `ok=${answer.content.ok}` : `action=${answer.action}`}`;
  }

  // Asked together, so that one input_required result carries all three questions.
  @Tool({ name: 'test_input_required_result_multiple_inputs', description: 'Asks three questions at once: user_name (elicitation), greeting (sampling), client_roots (roots/list)' })
  async multipleInputs(ctx: Context): Promise<string> {
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit('What is your name?', NameForm, { key: 'user_name' }),
      ctx.sample(GREETING_REQUEST, { key: 'greeting' }),
      ctx.roots({ key: 'client_roots' }),
    ]);
    return [`Name: ${describeAnswer(name, (c) => c.name)}`, `Greeting: ${textOf(greeting)}`, `Roots: ${describeRoots(roots)}`].join('\n');
  }

  // Two rounds of questions: step2 is asked only once step1 is answered, so the second
  // input_required result carries a new requestState (holding the answer to step1).
  @Tool({ name: 'test_input_required_result_multi_round', description: 'Asks step1 (your name), then step2 (your favorite color), one after the other' })
  async multiRound(ctx: Context): Promise<string> {
    const step1 = await ctx.elicit('Step 1: What is your name?', NameForm, { key: 'step1' });
    const step2 = await ctx.elicit('Step 2: What is your favorite color?', ColorForm, { key: 'step2' });
    return `Name: ${describeAnswer(step1, (c) => c.name)}; favorite color: ${describeAnswer(step2, (c) => c.color)}`;
  }

  // The scenario appends "-TAMPERED" to the requestState of the first round and expects a
  // JSON-RPC error (-32602) instead of this tool running again.
  @Tool({ name: 'test_input_required_result_tampered_state', description: 'Asks for a confirmation (elicitation, key confirm); a retry with an altered requestState is refused' })
  async tamperedState(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Please confirm to continue', ConfirmForm, { key: 'confirm' });
    return `Confirmed: ${answer.action === 'accept' ? answer.content.ok : answer.action}`;
  }

  // Asks only what the client declared it can answer (the scenario declares sampling alone).
  @Tool({ name: 'test_input_required_result_capabilities', description: 'Asks for sampling and/or elicitation, only what the client declared' })
  async capabilities(ctx: Context): Promise<string> {
    const { sampling, elicitation } = ctx.clientCapabilities;
    const [sampled, elicited] = await Promise.all([
      sampling ? ctx.sample(CAPITAL_QUESTION, { key: 'capital_question' }) : undefined,
      elicitation ? ctx.elicit('What is your name?', NameForm, { key: 'user_name' }) : undefined,
    ]);
    if (!sampled && !elicited) return 'The client declared neither sampling nor elicitation: nothing to ask';
    const parts: string[] = [];
    if (sampled) parts.push(`LLM response: ${textOf(sampled)}`);
    if (elicited) parts.push(`Name: ${describeAnswer(elicited, (c) => c.name)}`);
    return parts.join('\n');
  }
}

/** The text of a sampling answer; other blocks by their type. */
export function textOf(answer: SampleResult): string {
  const blocks = Array.isArray(answer.content) ? answer.content : [answer.content];
  return blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

function describeRoots(roots: ReadonlyArray<{ uri: string; name?: string }>): string {
  return roots.length === 0 ? '(none)' : roots.map((r) => (r.name ? `${r.uri} (${r.name})` : r.uri)).join(', ');
}

function describeAnswer<T>(answer: ElicitationResult<T>, show: (content: T) => string): string {
  return answer.action === 'accept' ? show(answer.content) : `(${answer.action})`;
}
