import { ArrayMaxSize, ArrayMinSize, IsArray, IsString } from 'class-validator';
import { Context, Description, Tool, ToolError } from '@typemcp/core';
import { WeatherLookup } from './WeatherLookup';

export class CompareInput {
  @IsArray() @ArrayMinSize(2) @ArrayMaxSize(5) @IsString({ each: true })
  @Description('Cities to compare, e.g. ["Paris", "London"]')
  cities!: string[];
}

export class AgentTools {
  @Tool({ description: "Compare the weather of several cities, using the client's model and a weather tool" })
  async compare_weather(input: CompareInput, ctx: Context): Promise<string> {
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: `What's the weather like in ${input.cities.join(' and ')}? Compare them.` } }],
      systemPrompt: 'You are a helpful weather assistant. Use get_weather for every city you are asked about.',
      maxTokens: 1000,
      tools: [WeatherLookup],
      toolChoice: { mode: 'auto' },
      maxIterations: 5,
    });
    const blocks = Array.isArray(answer.content) ? answer.content : [answer.content];
    const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    if (!text) throw new ToolError(`The model finished without an answer (stop reason: ${answer.stopReason ?? 'unknown'})`);
    ctx.log.info({ iterations: answer.iterations, model: answer.model }, 'agent');
    return text;
  }
}
