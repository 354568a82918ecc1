import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with one plain `N passed, N failed, N skipped` line that any CI can read. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const count = (state: 'passed' | 'failed' | 'skipped') =>
      testModules.reduce((total, module) => total + [...module.children.allTests(state)].length, 0);
    // A module whose setup failed has no failed test of its own, only skipped ones: count it once.
    const failedModules = testModules.filter(
      (module) => module.state() === 'failed' && [...module.children.allTests('failed')].length === 0,
    ).length;
    const failed = count('failed') + failedModules + unhandledErrors.length;
    process.stdout.write(`\n${count('passed')} passed, ${failed} failed, ${count('skipped')} skipped\n`);
  }
}
