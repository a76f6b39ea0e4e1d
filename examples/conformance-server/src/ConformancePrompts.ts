import { IsString } from 'class-validator';
import { Completion, Description, Prompt } from '@typemcp/core';
import { RED_PIXEL_PNG } from './fixtures';

export class PromptArgs {
  @IsString() @Description('First test argument') arg1!: string;
  @IsString() @Description('Second test argument') arg2!: string;
}

export class EmbeddedResourceArgs {
  @IsString() @Description('URI of the resource to embed') resourceUri!: string;
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
      { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG.toString('base64'), mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ];
  }
}
