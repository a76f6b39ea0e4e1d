import { injectable } from 'tsyringe';

const ENGINEERS = ['Ada', 'Grace', 'Linus', 'Margaret'];

/** Who is on call in a given week: engineers take turns, a week each, starting on Mondays. */
@injectable()
export class OnCallRota {
  thisWeek(today = new Date()): { start: string; engineer: string; backup: string } {
    const monday = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - ((today.getUTCDay() + 6) % 7)));
    const week = Math.floor(monday.getTime() / (7 * 24 * 3600 * 1000));
    return {
      start: monday.toISOString().slice(0, 10),
      engineer: ENGINEERS[week % ENGINEERS.length],
      backup: ENGINEERS[(week + 1) % ENGINEERS.length],
    };
  }
}
