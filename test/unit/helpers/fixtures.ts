import * as path from 'node:path';

/** Read-only fixtures vendored in the repo (sources and licences in test/fixtures/README.md). */
export const fixturesDir = path.resolve(__dirname, '../../fixtures');
