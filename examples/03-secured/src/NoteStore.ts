import { injectable } from 'tsyringe';

export interface Note {
  id: number;
  owner: string;
  text: string;
}

/** The notes, kept in memory: each belongs to the subject that wrote it. One per server. */
@injectable()
export class NoteStore {
  private readonly notes: Note[] = [];
  private nextId = 1;

  add(owner: string, text: string): Note {
    const note = { id: this.nextId++, owner, text };
    this.notes.push(note);
    return note;
  }

  all(): readonly Note[] {
    return this.notes;
  }

  get(id: number): Note | undefined {
    return this.notes.find((note) => note.id === id);
  }

  remove(id: number): boolean {
    const index = this.notes.findIndex((note) => note.id === id);
    if (index < 0) return false;
    this.notes.splice(index, 1);
    return true;
  }
}
