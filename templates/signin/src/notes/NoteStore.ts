import { injectable } from 'tsyringe';

export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
}

/** Notes kept in memory, one store per server (see server.ts): replace it with your database, API client or file store. */
@injectable()
export class NoteStore {
  private readonly notes = new Map<string, Note>();
  private nextId = 1;

  constructor() {
    this.add('Welcome', 'This server was scaffolded with create-typemcp.', ['typemcp']);
  }

  add(title: string, body: string, tags: string[] = []): Note {
    const note: Note = { id: String(this.nextId++), title, body, tags };
    this.notes.set(note.id, note);
    return note;
  }

  get(id: string): Note | undefined {
    return this.notes.get(id);
  }

  all(): Note[] {
    return [...this.notes.values()];
  }
}
