/**
 * Runs something a person asked for so that a failure is said in words, never lost: `say("")` clears the last
 * problem first, and if the action throws, `say` gets its message (shown beside the control by the caller).
 */
export async function sayingProblem(say: (problem: string) => void, action: () => Promise<unknown>): Promise<void> {
  say("");
  try {
    await action();
  } catch (e) {
    say(e instanceof Error ? e.message : String(e));
  }
}
