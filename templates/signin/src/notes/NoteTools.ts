import { ArrayMaxSize, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { inject, injectable } from 'tsyringe';
// Context is imported as a value: the compiler records it as the parameter's type.
import { Completion, Context, Description, ErrorCode, McpError, Prompt, Resource, Scopes, Tool, ToolError } from '@typemcp/core';
import { NoteStore } from './NoteStore.js';
import type { Note } from './NoteStore.js';

export class AddNoteInput {
  @IsString() @MinLength(1) @MaxLength(200)
  @Description('A short title')
  title!: string;

  @IsString() @MaxLength(10_000)
  @Description('The text of the note')
  body!: string;

  @IsOptional() @IsString({ each: true }) @ArrayMaxSize(10)
  @Description('Labels to find the note by')
  tags?: string[];
}

/** The input of read_note and the arguments of the summarize prompt. */
export class NoteIdInput {
  @IsString()
  @Description('Id of a note, e.g. "1"')
  id!: string;
}

/**
 * One provider class can hold tools, resources, prompts and completions. `input:`, `args:`
 * and `@inject()` are spelled out so the server also runs under compilers that emit no
 * decorator metadata (tsx, esbuild, vitest); with tsc or swc they could be left out.
 *
 * `@Scopes` says what a signed-in client must have been allowed: notes:read to read,
 * notes:write to add. These are the scopes the consent page asks the user for.
 */
@injectable()
export class NoteTools {
  constructor(@inject(NoteStore) private readonly notes: NoteStore) {}

  @Tool({ description: 'Save a note', input: AddNoteInput })
  @Scopes('notes:write')
  add_note(input: AddNoteInput, ctx: Context): string {
    const note = this.notes.add(input.title, input.body, input.tags);
    ctx.log.info(`note ${note.id} added`);
    return `Saved note ${note.id}: ${note.title}`;
  }

  @Tool({ description: 'Read one note by its id', annotations: { readOnlyHint: true }, input: NoteIdInput })
  @Scopes('notes:read')
  read_note(input: NoteIdInput): string {
    return render(this.findNote(input.id));
  }

  @Resource({ uri: 'notes://all', mimeType: 'application/json', description: 'Every note, as JSON' })
  @Scopes('notes:read')
  allNotes(): Note[] {
    return this.notes.all();
  }

  @Resource({ uri: 'notes://notes/{id}', mimeType: 'text/markdown', description: 'One note, as Markdown' })
  @Scopes('notes:read')
  note(vars: { id: string }): string {
    const note = this.notes.get(vars.id);
    // The protocol's own "resource not found", with the message for the client.
    if (!note) throw new McpError(ErrorCode.ResourceNotFound, this.missing(vars.id), { uri: `notes://notes/${vars.id}` });
    return render(note);
  }

  @Completion({ resource: 'notes://notes/{id}', argument: 'id' })
  @Completion({ prompt: 'summarize', argument: 'id' })
  @Scopes('notes:read')
  noteIds(value: string): string[] {
    return this.notes
      .all()
      .map((n) => n.id)
      .filter((id) => id.startsWith(value));
  }

  @Prompt({ description: 'Ask the model to summarize a note', args: NoteIdInput })
  @Scopes('notes:read')
  summarize(args: NoteIdInput): string {
    return `Summarize this note in two sentences:\n\n${render(this.findNote(args.id))}`;
  }

  /** The note, or a ToolError the caller sees: an isError result in a tool, -32602 in a prompt. */
  private findNote(id: string): Note {
    const note = this.notes.get(id);
    if (!note) throw new ToolError(this.missing(id));
    return note;
  }

  private missing(id: string): string {
    return `No note with id "${id}"; known ids: ${this.notes.all().map((n) => n.id).join(', ')}`;
  }
}

function render(note: Note): string {
  const tags = note.tags.length ? `\n\nTags: ${note.tags.join(', ')}` : '';
  return `# ${note.title}\n\n${note.body}${tags}`;
}
