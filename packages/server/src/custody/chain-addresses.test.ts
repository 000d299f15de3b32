import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mnemonicToSeedSync } from '@scure/bip39';
import { ed25519 } from '@noble/curves/ed25519.js';
import { CHAIN_DERIVATION_PATHS, deriveChainAddresses, slip10Ed25519 } from './chain-addresses.ts';
import { deriveEvmPrivateKey } from './key-vault.ts';
import { privateKeyToAddress } from 'viem/accounts';

const TEST_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

test('the standard test phrase gives the published first address of each chain', () => {
  // Published vectors: BIP-84 (bitcoin), and what Phantom, TronWeb and xrpl.js derive for this phrase.
  assert.deepEqual(deriveChainAddresses(TEST_MNEMONIC), {
    bitcoin_address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    solana_address: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
    tron_address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
    xrpl_address: 'rHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5v3',
  });
  // The EVM address of the same phrase, for completeness (BIP-44 m/44'/60'/0'/0/0).
  const evmKey = deriveEvmPrivateKey(TEST_MNEMONIC);
  assert.equal(privateKeyToAddress(`0x${Buffer.from(evmKey).toString('hex')}`), '0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
});

test('SLIP-10 ed25519 matches test vector 1 of the SLIP-0010 document', () => {
  const seed = Uint8Array.from(Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex'));
  const master = slip10Ed25519(seed, 'm');
  assert.equal(Buffer.from(master).toString('hex'), '2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7');
  assert.equal(Buffer.from(ed25519.getPublicKey(master)).toString('hex'), 'a4b2856bfec510abab89753fac1ac0e1112364e7d250545963f135f2a33188ed');
  const child = slip10Ed25519(seed, "m/0'");
  assert.equal(Buffer.from(child).toString('hex'), '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3');
  assert.throws(() => slip10Ed25519(seed, 'm/0'), /hardened/);
});

test('different phrases give different addresses, and paths are the documented ones', () => {
  const other = deriveChainAddresses('legal winner thank year wave sausage worth useful legal winner thank yellow');
  const standard = deriveChainAddresses(TEST_MNEMONIC);
  for (const key of Object.keys(standard) as Array<keyof typeof standard>) assert.notEqual(other[key], standard[key]);
  assert.equal(CHAIN_DERIVATION_PATHS.solana, "m/44'/501'/0'/0'");
  assert.ok(mnemonicToSeedSync(TEST_MNEMONIC).length === 64);
});
