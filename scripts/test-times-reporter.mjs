// A node:test reporter that writes one JSON line per finished test (not per suite): its file,
// name and duration. scripts/run-tests.mjs reads the lines to print the slowest tests at the end.
export default async function* testTimes(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, details, skip, todo } = event.data;
    if (details?.type === 'suite' || typeof details?.duration_ms !== 'number') continue;
    const outcome = event.type === 'test:fail' ? 'failed' : skip !== undefined || todo !== undefined ? 'skipped' : 'passed';
    yield `${JSON.stringify({ file, name, ms: details.duration_ms, outcome })}\n`;
  }
}
