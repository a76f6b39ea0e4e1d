import { IsString, MaxLength, MinLength } from 'class-validator';
import { inject, injectable } from 'tsyringe';
import { Context, Scopes, Tool } from '@typemcp/core';
import { NoteBook } from './NoteBook';

export class AddNoteInput {
  @IsString()
  @MinLength(1)
  @MaxLength(2000)
  text!: string;
}

/** The signed-in user's notes: reading needs notes:read, writing notes:write. */
@injectable()
export class NoteTools {
  constructor(@inject(NoteBook) private readonly book: NoteBook) {}

  @Tool({ description: "Lists the signed-in user's notes" })
  @Scopes('notes:read')
  list_notes(ctx: Context): string {
    const notes = this.book.list(ctx.principal!.subject);
    return notes.length === 0 ? `${ctx.principal!.subject} has no notes yet.` : notes.map((note, i) => `${i + 1}. ${note}`).join('\n');
  }

  @Tool({ description: "Adds a note to the signed-in user's notes" })
  @Scopes('notes:write')
  add_note(input: AddNoteInput, ctx: Context): string {
    const count = this.book.add(ctx.principal!.subject, input.text);
    return `Added note ${count} for ${ctx.principal!.subject}.`;
  }
}
