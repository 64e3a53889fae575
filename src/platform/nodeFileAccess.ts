/**
 * The real file system as a FileAccess lives in the rules layer (src/rules/nodeFileAccess.ts), so the
 * plugin's SessionStart hook, which may import only src/rules/, folds the spool through the same one.
 * Named here as well, where the CLI and the extension have always taken it.
 */
export { nodeFileAccess } from '../rules/nodeFileAccess';
