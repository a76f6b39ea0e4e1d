import { injectable } from 'tsyringe';

export interface Note {
  id: number;
  author: string;
  text: string;
}

/** The notes, in memory, with two to start from. One per notes server. */
@injectable()
export class NoteStore {
  private readonly notes: Note[] = [
    { id: 1, author: 'ops', text: 'The espresso machine on floor 2 is descaled every Monday' },
    { id: 2, author: 'ops', text: 'Order paper filters when fewer than 50 are left' },
  ];
  private nextId = 3;

  add(author: string, text: string): Note {
    const note = { id: this.nextId++, author, text };
    this.notes.push(note);
    return note;
  }

  get(id: number): Note | undefined {
    return this.notes.find((note) => note.id === id);
  }

  search(query: string): Note[] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return this.notes.filter((note) => words.every((word) => note.text.toLowerCase().includes(word)));
  }

  all(): readonly Note[] {
    return this.notes;
  }
}
