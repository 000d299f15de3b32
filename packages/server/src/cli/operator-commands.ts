/** The operator's commands that reach the chain or the data directory (faucet, backups); command-table.ts names them. */
import { faucet } from '../operator/faucet.ts';
import { createBackup } from '../backup/commands.ts';
import type { Handler, Needs } from './handler.ts';
import { required } from './options.ts';

export const operatorCommands = {
  faucet: (async (services, values) => {
    const transaction = await faucet(services, {
      to: required(values, 'to'),
      amount: required(values, 'amount'),
      ...(typeof values.chain === 'string' && values.chain ? { chain: values.chain } : {}),
    });
    return { tx_hash: transaction.txHash, status: transaction.receiptStatus ?? transaction.status, chain: transaction.chain };
  }) satisfies Handler<Needs['services']>,
  'backup create': (async (services, values) => ({ ...(await createBackup({ config: services.config, store: services.store }, required(values, 'to'))) })) satisfies Handler<Needs['services']>,
};
