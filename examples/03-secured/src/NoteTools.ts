import { IsInt, IsString, MaxLength, Min } from 'class-validator';
import { injectable } from 'tsyringe';
import { Context, Description, Guard, Public, Resource, Roles, Scopes, Tool, ToolError } from '@typemcp/core';
import type { GuardInput } from '@typemcp/core';
import { NoteStore } from './NoteStore';

export class NewNote {
  @IsString() @MaxLength(500) @Description('The text of the note') text!: string;
}

export class NoteRef {
  @IsInt() @Min(1) @Description('The id of a note') id!: number;
}

/** Only the subject that wrote a note may read it through `notes://{id}`. */
function ownNoteOnly({ principal, params, context }: GuardInput): boolean {
  const uri = params.uri;
  if (typeof uri !== 'string') return true; // listing the template: anyone with the scope may see it
  const id = Number(/^notes:\/\/(\d+)$/.exec(uri)?.[1]);
  return principal !== undefined && context.container.resolve(NoteStore).get(id)?.owner === principal.subject;
}

/** Every tool needs `notes:read`; writing needs `notes:write`; deleting needs the `admin` role. */
@injectable()
@Scopes('notes:read')
export class NoteTools {
  constructor(private readonly store: NoteStore) {}

  @Tool({ description: 'Lists the notes', annotations: { readOnlyHint: true } })
  list_notes(): string {
    const notes = this.store.all();
    return notes.length === 0 ? 'No notes yet' : notes.map((n) => `#${n.id} (${n.owner}): ${n.text}`).join('\n');
  }

  @Tool({ description: 'Adds a note, owned by the caller' })
  @Scopes('notes:write')
  add_note(input: NewNote, ctx: Context): string {
    const note = this.store.add(ctx.principal!.subject, input.text);
    return `Saved note #${note.id}`;
  }

  @Tool({ description: 'Deletes a note', annotations: { destructiveHint: true } })
  @Roles('admin')
  delete_note(input: NoteRef): string {
    if (!this.store.remove(input.id)) throw new ToolError(`No note #${input.id}`);
    return `Deleted note #${input.id}`;
  }

  @Tool({ description: 'Who the server thinks you are', annotations: { readOnlyHint: true } })
  @Public()
  whoami(ctx: Context): string {
    const principal = ctx.principal;
    return principal === undefined ? 'anonymous' : `${principal.subject} (scopes: ${principal.scopes.join(' ') || 'none'})`;
  }

  @Resource({ uri: 'notes://{id}', mimeType: 'text/plain', description: 'One of your own notes' })
  @Guard(ownNoteOnly)
  note(vars: { id: string }): string {
    return this.store.get(Number(vars.id))?.text ?? '';
  }
}
