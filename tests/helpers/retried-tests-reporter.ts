/**
 * A vitest reporter that writes the tests which failed first and then passed on CI's one retry to the file named by
 * VERDICT_RETRIED_REPORT, with the error of the failed attempt, so that `npm test` lists them at its end. A test that
 * needs its retry is a finding to fix (its timing or its isolation), never a pass to forget.
 */
import fs from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

export default class RetriedTestsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const file = process.env.VERDICT_RETRIED_REPORT;
    if (!file) return;
    const retried = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const diagnostic = test.diagnostic();
        if (!diagnostic || diagnostic.retryCount === 0) continue;
        // A test that passed on its retry still carries the failed attempt's errors.
        const result = test.result();
        retried.push({
          where: module.relativeModuleId,
          title: test.fullName,
          retries: diagnostic.retryCount,
          passed: result.state === "passed",
          firstError: ("errors" in result ? result.errors?.[0]?.message : undefined) ?? "",
        });
      }
    }
    fs.writeFileSync(file, JSON.stringify(retried));
  }
}
