/** How a call's record reached disk: before its result, in the same write as it, or not known. */
export type CallShape = 'before_result' | 'with_result' | 'unknown';
