// The rule lives in src/rules/hookDecision.ts: the completing wrapper (src/cli/complete.ts) reads its
// wrapped hook's answer by it too, and loads only src/rules/.
export { answerOf, DECISIONS, type Decision, type HookAnswer, type HookOutcome } from '../../rules/hookDecision';
