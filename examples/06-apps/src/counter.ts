import { injectable } from 'tsyringe';

/** The counter the app shows: one per server. */
@injectable()
export class CounterStore {
  private count = 0;

  get value(): number {
    return this.count;
  }

  add(step: number): number {
    this.count += step;
    return this.count;
  }
}
