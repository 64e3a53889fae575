import * as path from 'node:path';

/** Read-only shared fixtures: CI clones the repo with `shared/` beside it. */
export const fixturesDir = path.resolve(__dirname, '../../../shared/fixtures');
