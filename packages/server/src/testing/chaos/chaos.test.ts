import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runChaos } from './harness.ts';
import { formatReport, reorgCount, reportFailed } from './report.ts';

// Short runs for npm test (two or three kills, or some ten reorgs, each); .ci/run runs longer ones
// on PostgreSQL with three instances (kills, and reorgs: that one only there), and `npm run chaos`
// any length.
const LOAD_SECONDS = 20;

test('chaos, SQLite, one instance: kill -9 of the service and the node under load; every answered operation on chain once', { timeout: 180_000 }, async (t) => {
  const report = await runChaos({ durationSeconds: LOAD_SECONDS, seed: 23, instances: 1, store: 'sqlite', killEverySeconds: 6 });
  t.diagnostic(formatReport(report));
  assert.equal(reportFailed(report), false, formatReport(report));
  assert.ok(report.kills.instances + report.kills.chain > 0, 'something was killed');
});

test(
  'chaos, PostgreSQL, three instances: kill -9 of instances and the node under load; every answered operation on chain once',
  { timeout: 180_000, skip: process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL' },
  async (t) => {
    const report = await runChaos({ durationSeconds: LOAD_SECONDS, seed: 2323, instances: 3, store: 'postgres', killEverySeconds: 6 });
    t.diagnostic(formatReport(report));
    assert.equal(reportFailed(report), false, formatReport(report));
    assert.ok(report.kills.instances + report.kills.chain > 0, 'something was killed');
  },
);

test('chaos with reorgs, SQLite, one instance: the chain reorganised (depth 1 to 5) under load; lists equal the chain, every answered operation on chain once', { timeout: 180_000 }, async (t) => {
  const report = await runChaos({ durationSeconds: LOAD_SECONDS, seed: 36, instances: 1, store: 'sqlite', killEverySeconds: 0, reorgEverySeconds: 2 });
  t.diagnostic(formatReport(report));
  assert.equal(reportFailed(report), false, formatReport(report));
  assert.ok(report.reorgs && reorgCount(report.reorgs) > 0, 'the chain was reorganised');
  assert.equal(report.indexEqualsChain, true);
});
