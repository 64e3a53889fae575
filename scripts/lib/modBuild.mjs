// The mod's esbuild options, one place for scripts/build.mjs and scripts/plugin-hook.mjs (the
// committed plugin/hooks/transcript-lag-mod.js). Claude Code loads it as an ES module and checks it
// statically (`$` spelled `$.noun.event(...)`, handed only to top-level functions), so it is not
// minified: names and the functions' shapes stay as written.
export const modBuildOptions = {
  entryPoints: ['src/mod/register.ts'],
  bundle: true,
  platform: 'neutral',
  format: 'esm',
  target: 'es2022',
  sourcemap: false,
  minify: false,
  logLevel: 'warning',
  legalComments: 'none',
  banner: { js: '// Built from src/mod/ by scripts/plugin-hook.mjs: edit the source, not this file.' },
};
