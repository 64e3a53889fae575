/** The engine never reads the time itself: whoever builds it hands it a clock. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}
