// A node:test reporter that writes one JSON line per finished test (not per suite): its file,
// name and duration; and at the end one line per file with the span from the earliest start to
// the last end of its tests and suites (a suite's time holds its hooks). scripts/run-tests.mjs
// reads the lines for the slowest-tests report.
export default async function* testTimes(source) {
  const files = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, details, skip, todo } = event.data;
    if (typeof details?.duration_ms !== 'number') continue;
    if (file) {
      const now = Date.now();
      const span = files.get(file) ?? { start: Infinity, end: 0 };
      span.start = Math.min(span.start, now - details.duration_ms);
      span.end = now;
      files.set(file, span);
    }
    if (details.type === 'suite') continue;
    const outcome = event.type === 'test:fail' ? 'failed' : skip !== undefined || todo !== undefined ? 'skipped' : 'passed';
    yield `${JSON.stringify({ file, name, ms: details.duration_ms, outcome })}\n`;
  }
  for (const [file, { start, end }] of files) yield `${JSON.stringify({ file, fileMs: Math.round(end - start) })}\n`;
}
