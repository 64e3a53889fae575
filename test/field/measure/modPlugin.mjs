// The measures' test plugin: a folder holding one mod and nothing else, loaded with `--plugin-dir`.
import fs from 'node:fs';
import path from 'node:path';

/** Writes `dir` as a plugin named `name` whose hooks.json loads `hooks/<file>` (the mod's `source`) as its one module. */
export function writeModPlugin(dir, { name, description, file, source }) {
  fs.mkdirSync(path.join(dir, '.claude-plugin'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'hooks'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.claude-plugin', 'plugin.json'), JSON.stringify({ name, version: '0.0.1', description }));
  fs.writeFileSync(path.join(dir, 'hooks', 'hooks.json'), JSON.stringify({ modules: [`./${file}`], hooks: {} }));
  fs.writeFileSync(path.join(dir, 'hooks', file), source);
}
