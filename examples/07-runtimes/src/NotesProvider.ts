import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { injectable } from 'tsyringe';
import { Completion, Context, Description, Prompt, Resource, Tool, ToolError } from '@typemcp/core';

export const TOPICS = ['deploy', 'decorators', 'durable-objects', 'deno', 'bun'] as const;

export class AddNoteInput {
  @IsString() @Length(1, 40) @Description('A short title')
  title!: string;

  @IsInt() @Min(1) @Max(5) @Description('Priority, 1 (low) to 5 (high)')
  priority!: number;

  @IsOptional() @IsIn(TOPICS) @Description('One of the known topics')
  topic?: string;
}

export class ClearInput {
  @IsOptional() @IsIn(TOPICS) @Description('Only the notes of this topic')
  topic?: string;
}

export class ConfirmForm {
  @IsBoolean() @Description('Clear the notes?')
  confirm!: boolean;
}

export class SummaryArgs {
  @IsString() @Description('The topic to summarize')
  topic!: string;
}

interface Note {
  id: number;
  title: string;
  priority: number;
  topic?: string;
}

/**
 * The same notes on every runtime: a tool with a class-validator DTO, a resource template, a
 * prompt with completion, and a tool that asks the user (elicitation). Notes live in memory:
 * one process, or one Worker isolate.
 */
@injectable()
export class NotesProvider {
  private readonly notes: Note[] = [];

  @Tool({ description: 'Add a note' })
  add_note(input: AddNoteInput): string {
    const note: Note = { id: this.notes.length + 1, title: input.title, priority: input.priority, topic: input.topic };
    this.notes.push(note);
    return `Added note ${note.id}: ${note.title} (priority ${note.priority})`;
  }

  @Tool({ description: 'Clear the notes, after the user confirms' })
  async clear_notes(input: ClearInput, ctx: Context): Promise<string> {
    const answer = await ctx.elicit(`Clear ${input.topic ? `the ${input.topic} notes` : 'every note'}?`, ConfirmForm);
    if (answer.action !== 'accept' || !answer.content.confirm) return 'Nothing cleared';
    const before = this.notes.length;
    this.notes.splice(0, before, ...this.notes.filter((note) => input.topic !== undefined && note.topic !== input.topic));
    return `Cleared ${before - this.notes.length} notes`;
  }

  @Resource({ uri: 'notes://{id}', name: 'note', description: 'One note, by id', mimeType: 'application/json' })
  note(variables: { id: string }): string {
    const note = this.notes.find((n) => String(n.id) === variables.id);
    if (!note) throw new ToolError(`There is no note ${variables.id}`);
    return JSON.stringify(note);
  }

  @Prompt({ name: 'summarize', description: 'Summarize the notes of a topic' })
  summarize(args: SummaryArgs): string {
    const titles = this.notes.filter((n) => n.topic === args.topic).map((n) => `- ${n.title}`);
    return `Summarize these notes about ${args.topic}:\n${titles.join('\n') || '(none)'}`;
  }

  @Completion({ prompt: 'summarize', argument: 'topic' })
  topics(value: string): string[] {
    return TOPICS.filter((topic) => topic.startsWith(value));
  }
}
