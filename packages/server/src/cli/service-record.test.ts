import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../config/config.ts';
import { allowsSeveralInstances } from './service-record.ts';

const external = { WALLET_CHAIN_MAIN_RPC_URL: 'https://rpc.example.com', WALLET_CHAIN_MAIN_CHAIN_ID: '8217', WALLET_CHAIN_ETHEREUM: 'off', WALLET_CHAIN_POLYGON: 'off' };

test('several instances may share a data directory only on PostgreSQL with no embedded chain', () => {
  assert.equal(allowsSeveralInstances(loadConfig({ env: { ...external, DATABASE_URL: 'postgres://u@127.0.0.1/db' } })), true);
  assert.equal(allowsSeveralInstances(loadConfig({ env: external })), false, 'SQLite lives in the directory');
  assert.equal(allowsSeveralInstances(loadConfig({ env: { DATABASE_URL: 'postgres://u@127.0.0.1/db', WALLET_CHAIN_ETHEREUM: 'off', WALLET_CHAIN_POLYGON: 'off' } })), false, 'an embedded main chain');
});
