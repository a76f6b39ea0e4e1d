import { IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { Context, Description, InternalError, Tool, ToolError } from '@typemcp/core';
import { NameForm } from './InputRequiredTools';

// The fixtures of the tasks extension scenarios (SEP-2663, `tasks-*`): the tool names and
// arguments the suite calls. A client that declares `io.modelcontextprotocol/tasks` gets a
// task from every tool here but `greet`; one that does not gets the result directly (or
// -32021 from the tools that run only as tasks).

// ---- inputs ------------------------------------------------------------------------------

export class GreetInput {
  @IsString() @Description('Who to greet')
  name!: string;
}

export class SlowComputeInput {
  @IsInt() @Min(0) @Max(3600) @Description('How long the computation takes, in seconds (0: at once)')
  seconds!: number;

  @IsOptional() @IsString() @Description('A label, echoed in the result')
  label?: string;
}

export class DeleteInput {
  @IsString() @Description('The file to delete')
  filename!: string;
}

// ---- elicitation forms -------------------------------------------------------------------

/** `{ confirm: boolean }`: the question of confirm_delete. */
export class ConfirmDeleteForm {
  @IsBoolean() @Description('Delete the file?')
  confirm!: boolean;
}

/** Both fields optional: multi_input's two questions, which the suite answers alike. */
export class DetailsForm {
  @IsOptional() @IsString() @Description('A name')
  name?: string;

  @IsOptional() @IsBoolean() @Description('Confirm?')
  confirm?: boolean;
}

// ---- tools -----------------------------------------------------------------------------------

export class TaskTools {
  @Tool({ description: 'Greets by name, at once (never a task)' })
  greet(input: GreetInput): string {
    return `Hello, ${input.name}!`;
  }

  // Ends `cancelled` when tasks/cancel arrives while it sleeps: the runtime stores the
  // cancellation, and the aborted sleep's result is dropped.
  @Tool({ name: 'slow_compute', description: 'Computes for the given number of seconds', task: 'optional' })
  async slowCompute(input: SlowComputeInput, ctx: Context): Promise<string> {
    await pause(input.seconds * 1000, ctx.signal);
    return `Computed ${input.label ?? 'result'} in ${input.seconds}s`;
  }

  // Runs only as a task: a client without the extension gets -32021 (tasks-required-task-error).
  @Tool({ name: 'failing_job', description: 'Fails after about a second with a tool error', task: 'required' })
  async failingJob(ctx: Context): Promise<string> {
    await pause(1000, ctx.signal);
    throw new ToolError('The job failed: the input could not be processed');
  }

  @Tool({ name: 'protocol_error_job', description: 'Fails with a JSON-RPC error', task: 'optional' })
  async protocolErrorJob(ctx: Context): Promise<string> {
    await pause(100, ctx.signal);
    throw new InternalError('The job crashed');
  }

  // As a task, the question waits in it (input_required) until tasks/update answers it.
  @Tool({ name: 'confirm_delete', description: 'Asks for a confirmation, then deletes the file', task: 'optional' })
  async confirmDelete(input: DeleteInput, ctx: Context): Promise<string> {
    const answer = await ctx.elicit(`Delete ${input.filename}?`, ConfirmDeleteForm);
    if (answer.action !== 'accept') return `Kept ${input.filename} (${answer.action})`;
    return answer.content.confirm ? `Deleted ${input.filename}` : `Kept ${input.filename}`;
  }

  // Two questions at once: both are outstanding together, and may be answered one at a time.
  @Tool({ name: 'multi_input', description: 'Asks two questions at once', task: 'optional' })
  async multiInput(ctx: Context): Promise<string> {
    const [first, second] = await Promise.all([ctx.elicit('First question', DetailsForm), ctx.elicit('Second question', DetailsForm)]);
    const show = (answer: typeof first) => (answer.action === 'accept' ? (answer.content.name ?? String(answer.content.confirm)) : answer.action);
    return `First: ${show(first)}; second: ${show(second)}`;
  }

  // Asks within the call (an input_required round), then goes on as a task.
  @Tool({ name: 'test_tool_with_task', description: 'Asks your name, then greets you from a task', task: 'required', taskStart: 'continueAsTask' })
  async toolWithTask(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('What is your name?', NameForm, { key: 'user_name' });
    await ctx.continueAsTask();
    await pause(200, ctx.signal);
    return answer.action === 'accept' ? `Hello, ${answer.content.name}! (greeted from a task)` : `No name given (${answer.action})`;
  }
}

/** Waits `ms`, or until `signal` aborts (then rejects with its reason). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}
