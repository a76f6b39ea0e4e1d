import { IsString } from 'class-validator';
import { Completion, Context, Description, Prompt } from '@typemcp/core';
import { RED_PIXEL_PNG_BASE64 } from './fixtures';
import { TOGGLED_PROMPT } from './StatelessTools';

export class PromptArgs {
  @IsString() @Description('First test argument') arg1!: string;
  @IsString() @Description('Second test argument') arg2!: string;
}

export class EmbeddedResourceArgs {
  @IsString() @Description('URI of the resource to embed') resourceUri!: string;
}

/** `{ context: string }`, required: the form of `user_context`. */
export class PromptContextForm {
  @IsString() @Description('Context for the prompt') context!: string;
}

/** The prompts the conformance scenarios get, and the completion they ask for. */
export class ConformancePrompts {
  @Prompt({ name: 'test_simple_prompt', title: 'Simple Test Prompt', description: 'A simple prompt without arguments' })
  simple(): string {
    return 'This is a simple prompt for testing.';
  }

  @Prompt({ name: 'test_prompt_with_arguments', title: 'Prompt With Arguments', description: 'A prompt with required arguments' })
  withArguments(args: PromptArgs): string {
    return `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`;
  }

  @Completion({ prompt: 'test_prompt_with_arguments', argument: 'arg1' })
  arg1Values(value: string): string[] {
    return ['paris', 'park', 'party', 'test-value'].filter((v) => v.startsWith(value));
  }

  @Prompt({ name: 'test_prompt_with_embedded_resource', title: 'Prompt With Embedded Resource', description: 'A prompt that includes an embedded resource' })
  withEmbeddedResource(args: EmbeddedResourceArgs) {
    return [
      {
        role: 'user',
        content: { type: 'resource', resource: { uri: args.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ];
  }

  @Prompt({ name: 'test_prompt_with_image', title: 'Prompt With Image', description: 'A prompt that includes image content' })
  withImage() {
    return [
      { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ];
  }

  // input-required-result-non-tool-request (2026-07-28): input_required is not only for
  // tools; the first prompts/get is answered with the question, the retry with the messages.
  @Prompt({ name: 'test_input_required_result_prompt', title: 'Prompt Needing Input', description: 'Asks the user what context to use (elicitation, key user_context), then returns a prompt with it' })
  async inputRequired(ctx: Context) {
    const answer = await ctx.elicit('What context should the prompt use?', PromptContextForm, { key: 'user_context' });
    const context = answer.action === 'accept' ? answer.content.context : `none (${answer.action})`;
    return [
      { role: 'user', content: { type: 'text', text: `Context: ${context}` } },
      { role: 'user', content: { type: 'text', text: 'Please answer with this context in mind.' } },
    ];
  }

  @Prompt({ name: TOGGLED_PROMPT, title: 'Toggled Prompt', description: 'Listed or not, as the tool test_trigger_prompt_change toggles it' })
  toggled(): string {
    return `${TOGGLED_PROMPT} is listed`;
  }
}
