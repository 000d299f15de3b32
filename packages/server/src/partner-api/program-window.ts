import type { Config } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';

/**
 * Whether the partner program is still running: `partnerProgram.endsAt` is the first instant at
 * which it is closed; null keeps it open.
 */
export function isPartnerProgramOpen(config: Pick<Config, 'partnerProgram'>, now: Date = new Date()): boolean {
  const endsAt = config.partnerProgram.endsAt;
  return endsAt === null || now.getTime() < Date.parse(endsAt);
}

/**
 * Throws AppError 440 once the partner program has ended: every Family A call and the
 * `partner create` command answer it.
 */
export function assertPartnerProgramOpen(config: Pick<Config, 'partnerProgram'>, now: Date = new Date()): void {
  if (!isPartnerProgramOpen(config, now)) {
    throw new AppError(Errors.ProgramEnded, { detail: `the partner program ended at ${config.partnerProgram.endsAt}` });
  }
}
