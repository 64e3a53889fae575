/** What every benchmark section gets from the harness. */
export interface BenchContext {
  repoRoot: string;
  /** Folder of the bundled bench helpers (writer, extension child). */
  bundleDir: string;
  /** Smaller counts and sizes, for checking the harness itself. */
  quick: boolean;
  /** Size in bytes of the big generated transcript (cold index, ready). */
  sizeBytes: number;
  /** Timed rounds per contender where rounds apply. */
  rounds: number;
  /** Also profile one analyze run (node --cpu-prof) and report where its time goes. */
  profile: boolean;
  /** Another build's dist/ (`--before-dist`), run beside this one where a section says so (replay-memory). */
  beforeDist?: string;
  /** Progress to stderr, so stdout stays the table (or the JSON). */
  log(message: string): void;
}
