/** The CLI's reading commands of the config and the audit log (`limits show`, `audit list`); command-table.ts names them. */
import { listOperatorActions } from '../audit/store.ts';
import type { Handler, Needs } from './handler.ts';
import { pageLimit } from './options.ts';

export const recordCommands = {
  'limits show': (async ({ config }) => {
    const { invites, a2a, partners, partnerApi, timeZone } = config;
    // Each limit with the code a request past it answers; 0 means no limit.
    return {
      time_zone: timeZone,
      invite_sender_daily_4112: invites.senderDailyLimit,
      invite_receiver_daily_4114: invites.receiverDailyLimit,
      invite_receiver_monthly_4115: invites.receiverMonthlyLimit,
      execute_contract_daily_6200: a2a.executeContractDailyLimit,
      partner_default_mint_monthly_4080: partners.defaultMintLimit,
      partner_api_requests_429: `${partnerApi.rateLimit.max} per ${partnerApi.rateLimit.timeWindowMs / 1000} s per client address`,
    };
  }) satisfies Handler<Needs['config']>,
  'audit list': (async ({ store }, values) => {
    const page = await listOperatorActions(store.db, { limit: pageLimit(values), ...(typeof values.cursor === 'string' && values.cursor ? { cursor: values.cursor } : {}) });
    return { entries: page.entries, next_cursor: page.nextCursor };
  }) satisfies Handler<Needs['store']>,
};
