/**
 * The engine's file access is the rules layer's (src/rules/fileAccess.ts): the plugin's SessionStart hook
 * folds the mod's spool through it too (src/rules/spoolFold.ts), and the hook may import only src/rules/.
 * Named here as well, where the engine's modules have always taken it.
 */
export * from '../rules/fileAccess';
