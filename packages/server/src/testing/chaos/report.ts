import type { ChaosReport, ReorgFigures } from './harness.ts';
import { MOVED_BY_TRAFFIC } from './metrics-scrape.ts';

/** The figures of a run, as printed by `npm run chaos` and the test. */
export function formatReport(report: ChaosReport): string {
  const lines = [
    `chaos: seed ${report.seed}, ${report.instances} instance(s) on ${report.store}, ${report.durationSeconds} s of load`,
    `operations ${report.operations.answered + report.operations.refused + report.operations.unanswered}: answered ${report.operations.answered}, refused ${report.operations.refused}, unanswered (cut by a kill) ${report.operations.unanswered}`,
    ...Object.entries(report.byKind).sort().map(([kind, counts]) => `  ${kind}: ${counts.answered} answered, ${counts.refused} refused, ${counts.unanswered} unanswered`),
    `kills: ${report.kills.instances + report.kills.chain} (instances ${report.kills.instances}, chain node ${report.kills.chain})`,
    ...(report.reorgs ? reorgLines(report.reorgs) : []),
    `cards on chain ${report.cardsOnChain}, accounts checked ${report.accountsChecked}, settled in ${report.settleSeconds.toFixed(1)} s`,
    `lost ${report.lost}, duplicated ${report.duplicated}, index equal to chain ${report.indexEqualsChain ? 'yes' : 'no'}, discrepancies ${report.discrepancies.length}`,
    `metrics: ${report.metrics.scrapes} scrapes parsed (${report.metrics.pairs} after another of the same process); families missing: ${report.metrics.missing.join(', ') || 'none'}; moving: ${report.metrics.moving.length} (${report.metrics.moving.join(', ')})`,
    ...metricsProblems(report).map((line) => `  ${line}`),
    ...report.discrepancies.slice(0, 400).map((line) => `  ${line}`),
  ];
  if (report.surprises.length > 0) {
    lines.push(`refusals and unanswered calls (${report.surprises.length}, first 20):`, ...report.surprises.slice(0, 20).map((line) => `  ${line}`));
  }
  return lines.join('\n');
}

/**
 * A run fails on any discrepancy, and when nothing at all was answered (a load that never ran
 * proves nothing); a reorg run also when it made no reorganisation, or one failed.
 */
export function reportFailed(report: ChaosReport): boolean {
  const reorgsMissing = report.reorgs !== undefined && (reorgCount(report.reorgs) === 0 || report.reorgs.failed.length > 0);
  return (
    report.discrepancies.length > 0 ||
    report.lost > 0 ||
    report.duplicated > 0 ||
    !report.indexEqualsChain ||
    report.operations.answered === 0 ||
    reorgsMissing ||
    metricsProblems(report).length > 0
  );
}

/** Reorganisations made, in all. */
export function reorgCount(reorgs: ReorgFigures): number {
  return Object.values(reorgs.byDepth).reduce((sum, modes) => sum + modes.dropped + modes.reordered, 0);
}

function reorgLines(reorgs: ReorgFigures): string[] {
  const depths = Object.entries(reorgs.byDepth).sort(([a], [b]) => Number(a) - Number(b));
  return [
    `reorgs: ${reorgCount(reorgs)} (${depths.map(([depth, modes]) => `depth ${depth}: ${modes.dropped + modes.reordered}`).join(', ') || 'none'}); failed ${reorgs.failed.length}`,
    ...depths.map(([depth, modes]) => `  depth ${depth}: ${modes.dropped} with transactions dropped, ${modes.reordered} re-ordered`),
    `  mined transactions in replaced blocks: ${reorgs.transactions.dropped} dropped, ${reorgs.transactions.reordered} re-ordered`,
    ...reorgs.failed.slice(0, 10).map((line) => `  reorg failed: ${line}`),
  ];
}

/** A scrape that did not parse, a family never exported, or one that traffic must move and did not. */
function metricsProblems(report: ChaosReport): string[] {
  const { metrics } = report;
  return [
    ...metrics.refused.map((line) => `metrics scrape refused: ${line}`),
    ...metrics.missing.map((name) => `metric family missing: ${name}`),
    ...(metrics.scrapes === 0 ? ['no /metrics scrape answered'] : []),
    ...(metrics.scrapes > 0 && metrics.pairs === 0 ? ['no two scrapes of one process: nothing could be seen to move'] : []),
    ...MOVED_BY_TRAFFIC.filter((name) => !metrics.moving.includes(name)).map((name) => `metric did not move under load: ${name}`),
  ];
}
