// Types of what the unit tests use from assertions.mjs (test/unit/field/fieldMetricsCheck.test.ts).
export function bucketIndex(bounds: number[], seconds: number): number;
export function rankQuantile(values: number[], q: number): number | undefined;
export function checkScenario(result: unknown, opts: { strictProfile: boolean }): string[];
export function finalLag(watchEvents: Array<Record<string, unknown>>, sessionId: string, toolUseId: string): Record<string, unknown> | undefined;
