import { IsNumberString, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { injectable } from 'tsyringe';
import { Context, Description, ErrorCode, McpError, Prompt, Resource, Tool } from '@typemcp/core';
import { NoteStore } from './NoteStore';
import { RequestLog } from './RequestLog';

export class NewNote {
  @IsString() @MinLength(1) @MaxLength(500) @Description('The text of the note') text!: string;
}

export class NoteQuery {
  @IsString() @MinLength(1) @MaxLength(100) @Description('Words the notes must contain') query!: string;
}

export class SummaryArgs {
  @IsOptional() @IsString() @MaxLength(100) @Description('Only notes about this') topic?: string;
  // Prompt arguments are strings.
  @IsOptional() @IsNumberString({ no_symbols: true }) @MaxLength(3) @Description('At most this many words (default 50)') words?: string;
}

/**
 * Who the notes are written for: the gateway names its caller in `x-on-behalf-of`; the
 * service trusts it because only the gateway holds the service's key.
 */
function authorOf(ctx: Context): string {
  return ctx.httpRequest?.headers.get('x-on-behalf-of') ?? 'anonymous';
}

@injectable()
export class NoteTools {
  constructor(
    private readonly store: NoteStore,
    private readonly requests: RequestLog,
  ) {}

  @Tool({ description: 'Adds a note' })
  add_note(input: NewNote, ctx: Context): string {
    const note = this.store.add(authorOf(ctx), input.text);
    return `Saved note #${note.id} for ${note.author}`;
  }

  @Tool({ description: 'Finds the notes that contain every word of the query', annotations: { readOnlyHint: true } })
  search_notes(input: NoteQuery): string {
    const found = this.store.search(input.query);
    return found.length === 0 ? 'No note matches' : found.map((note) => `#${note.id} (${note.author}): ${note.text}`).join('\n');
  }

  @Resource({ uri: 'note://{id}', mimeType: 'text/plain', description: 'One note, by its id' })
  note(vars: { id: string }): string {
    const note = this.store.get(Number(vars.id));
    if (note === undefined) throw new McpError(ErrorCode.ResourceNotFound, `Resource not found: note://${vars.id}`, { uri: `note://${vars.id}` });
    return `${note.text}\n(by ${note.author})`;
  }

  @Resource({ uri: 'audit://requests', mimeType: 'application/json', description: 'The latest HTTP requests the service received, and the credentials they carried' })
  audit() {
    return { requests: this.requests.recent() };
  }

  @Prompt({ description: 'Asks the model for a summary of the notes' })
  summarize_notes(args: SummaryArgs): string {
    const notes = args.topic ? this.store.search(args.topic) : this.store.all();
    const listed = notes.map((note) => `- ${note.text}`).join('\n') || '(no notes)';
    return `Summarize these notes${args.topic ? ` about ${args.topic}` : ''} in at most ${args.words ?? '50'} words:\n${listed}`;
  }
}
