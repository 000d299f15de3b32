import type { Kysely, Migration, MigrationProvider } from 'kysely';
import * as initial from './001-initial.ts';
import * as partnerAccess from './002-partner-access.ts';
import * as app2app from './003-app2app.ts';
import * as cardIndex from './004-card-index.ts';
import * as cards from './005-cards.ts';
import * as people from './006-people.ts';
import * as uniqueMember from './007-unique-member.ts';
import * as inviteCharges from './008-invite-charges.ts';
import * as escrowClaims from './009-escrow-claims.ts';
import * as claimAttempts from './010-claim-attempts.ts';
import * as operatorAudit from './011-operator-audit.ts';
import * as masterKeyId from './012-master-key-id.ts';
import * as idempotencyKeys from './013-idempotency-keys.ts';
import * as webhooks from './014-webhooks.ts';
import * as walletAppMembers from './015-wallet-app-members.ts';
import * as memberActivity from './016-member-activity.ts';
import * as requestChangeNotify from './017-request-change-notify.ts';
import * as webhookDurability from './018-webhook-durability.ts';
import * as escrowClaimSecrets from './019-escrow-claim-secrets.ts';
import * as cardClaims from './020-card-claims.ts';
import * as signInGuard from './021-sign-in-guard.ts';
import * as webhookDelivery from './022-webhook-delivery.ts';
import * as masterKeyRollout from './023-master-key-rollout.ts';
import * as memberTransfers from './024-member-transfers.ts';
import * as cardContractKind from './025-card-contract-kind.ts';
import * as pinChangeCheck from './026-pin-change-check.ts';
import * as readIndexes from './027-read-indexes.ts';
import * as historyIndexes from './028-history-indexes.ts';

import type { MigrationContext } from './context.ts';

export type { MigrationContext, StoreDialect } from './context.ts';

interface MigrationModule {
  up(db: Kysely<unknown>, context: MigrationContext): Promise<void>;
}

/** Every migration, in order. Names sort; a new one goes at the end and is never edited after release. */
const migrations: Record<string, MigrationModule> = {
  '001-initial': initial,
  '002-partner-access': partnerAccess,
  '003-app2app': app2app,
  '004-card-index': cardIndex,
  '005-cards': cards,
  '006-people': people,
  '007-unique-member': uniqueMember,
  '008-invite-charges': inviteCharges,
  '009-escrow-claims': escrowClaims,
  '010-claim-attempts': claimAttempts,
  '011-operator-audit': operatorAudit,
  '012-master-key-id': masterKeyId,
  '013-idempotency-keys': idempotencyKeys,
  '014-webhooks': webhooks,
  '015-wallet-app-members': walletAppMembers,
  '016-member-activity': memberActivity,
  '017-request-change-notify': requestChangeNotify,
  '018-webhook-durability': webhookDurability,
  '019-escrow-claim-secrets': escrowClaimSecrets,
  '020-card-claims': cardClaims,
  '021-sign-in-guard': signInGuard,
  '022-webhook-delivery': webhookDelivery,
  '023-master-key-rollout': masterKeyRollout,
  '024-member-transfers': memberTransfers,
  '025-card-contract-kind': cardContractKind,
  '026-pin-change-check': pinChangeCheck,
  '027-read-indexes': readIndexes,
  '028-history-indexes': historyIndexes,
};

export function migrationProvider(context: MigrationContext): MigrationProvider {
  return {
    async getMigrations() {
      const result: Record<string, Migration> = {};
      for (const [name, module] of Object.entries(migrations)) {
        result[name] = { up: (db) => module.up(db, context) };
      }
      return result;
    },
  };
}
