import { describe, expect, it } from "vitest";
import { sayingProblem } from "../../app/_lib/say-problem";

describe("sayingProblem (an action whose failure is said beside its control)", () => {
  it("clears the last problem, then says the error's message when the action throws", async () => {
    const said: string[] = [];
    await sayingProblem(
      (p) => said.push(p),
      async () => {
        throw new Error("campaign: the campaign is closed");
      },
    );
    expect(said).toEqual(["", "campaign: the campaign is closed"]);
  });

  it("says nothing more when the action succeeds, and has run it to its end", async () => {
    const said: string[] = [];
    let done = false;
    await sayingProblem(
      (p) => said.push(p),
      async () => {
        await Promise.resolve();
        done = true;
      },
    );
    expect(said).toEqual([""]);
    expect(done).toBe(true);
  });

  it("words a thrown value that is not an Error", async () => {
    const said: string[] = [];
    await sayingProblem(
      (p) => said.push(p),
      () => Promise.reject("offline"),
    );
    expect(said).toEqual(["", "offline"]);
  });
});
