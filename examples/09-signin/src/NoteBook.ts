import { injectable } from 'tsyringe';

/** Each user's notes, apart: a user sees and changes only their own. */
@injectable()
export class NoteBook {
  private readonly notes = new Map<string, string[]>();

  list(userId: string): readonly string[] {
    return this.notes.get(userId) ?? [];
  }

  add(userId: string, text: string): number {
    const notes = [...this.list(userId), text];
    this.notes.set(userId, notes);
    return notes.length;
  }
}
