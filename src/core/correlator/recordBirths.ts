/** Births kept per session by default: a few turns' rows; one is dropped for each past it, oldest first. */
export const DEFAULT_RECORD_BIRTHS_KEPT = 4096;

/**
 * When each transcript row was born, by its `uuid`, as the mod's `record`
 * events say (`session.append`). Bounded: a row is read moments after it is
 * born, so only the latest births are kept; past the bound the one learned
 * longest ago is dropped. A uuid reported twice keeps its earliest time, so
 * arrival order changes nothing.
 */
export class RecordBirths {
  private readonly births = new Map<string, number>();

  constructor(private readonly kept = DEFAULT_RECORD_BIRTHS_KEPT) {}

  note(uuid: string, at: number): void {
    const known = this.births.get(uuid);
    if (known !== undefined && known <= at) return;
    this.births.set(uuid, at);
    while (this.births.size > this.kept) this.births.delete(this.births.keys().next().value as string);
  }

  bornAt(uuid: string): number | undefined {
    return this.births.get(uuid);
  }

  get size(): number {
    return this.births.size;
  }
}
