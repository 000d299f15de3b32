import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hmac } from '@noble/hashes/hmac.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58, base58xrp, bech32, createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';

/** Derivation paths of the first account of each chain, as the common wallets use them. */
export const CHAIN_DERIVATION_PATHS = {
  /** BIP-84 native segwit, first receiving address. */
  bitcoin: "m/84'/0'/0'/0/0",
  /** SLIP-10 ed25519, every level hardened (Phantom, Solflare, solana-keygen). */
  solana: "m/44'/501'/0'/0'",
  tron: "m/44'/195'/0'/0/0",
  xrpl: "m/44'/144'/0'/0/0",
} as const;

/** The non-EVM addresses of a member, derived from the member's BIP-39 phrase. */
export interface ChainAddresses {
  bitcoin_address: string;
  solana_address: string;
  tron_address: string;
  xrpl_address: string;
}

/**
 * Derives the bitcoin (bech32 P2WPKH), solana, tron and xrpl addresses of a BIP-39 phrase (no
 * passphrase). Private material is wiped before returning.
 *
 * @example
 * deriveChainAddresses('abandon abandon … about').bitcoin_address // 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'
 */
export function deriveChainAddresses(mnemonic: string): ChainAddresses {
  const seed = mnemonicToSeedSync(mnemonic);
  try {
    const root = HDKey.fromMasterSeed(seed);
    try {
      return {
        bitcoin_address: bitcoinAddress(compressedKeyAt(root, CHAIN_DERIVATION_PATHS.bitcoin)),
        solana_address: solanaAddress(seed),
        tron_address: tronAddress(compressedKeyAt(root, CHAIN_DERIVATION_PATHS.tron)),
        xrpl_address: xrplAddress(compressedKeyAt(root, CHAIN_DERIVATION_PATHS.xrpl)),
      };
    } finally {
      root.wipePrivateData();
    }
  } finally {
    seed.fill(0);
  }
}

function compressedKeyAt(root: HDKey, path: string): Uint8Array {
  const child = root.derive(path);
  try {
    if (!child.publicKey) throw new Error(`no public key at ${path}`);
    return Uint8Array.from(child.publicKey);
  } finally {
    child.wipePrivateData();
  }
}

/** bech32 `bc1q…`: witness version 0 over hash160 of the compressed key. */
function bitcoinAddress(compressedKey: Uint8Array): string {
  return bech32.encode('bc', [0, ...bech32.toWords(ripemd160(sha256(compressedKey)))]);
}

/** base58check of 0x41 + the last 20 bytes of keccak256 of the uncompressed key (as EVM, another prefix). */
function tronAddress(compressedKey: Uint8Array): string {
  const uncompressed = secp256k1.Point.fromBytes(compressedKey).toBytes(false);
  const body = keccak_256(uncompressed.subarray(1)).subarray(12);
  return createBase58check(sha256).encode(Uint8Array.from([0x41, ...body]));
}

/** XRPL classic address: type byte 0 + account id (hash160), double-SHA-256 checksum, XRPL alphabet. */
function xrplAddress(compressedKey: Uint8Array): string {
  const payload = Uint8Array.from([0x00, ...ripemd160(sha256(compressedKey))]);
  const checksum = sha256(sha256(payload)).subarray(0, 4);
  return base58xrp.encode(Uint8Array.from([...payload, ...checksum]));
}

/** The ed25519 public key at the solana path, base58 (bitcoin alphabet). */
function solanaAddress(seed: Uint8Array): string {
  const privateKey = slip10Ed25519(seed, CHAIN_DERIVATION_PATHS.solana);
  try {
    return base58.encode(ed25519.getPublicKey(privateKey));
  } finally {
    privateKey.fill(0);
  }
}

const HARDENED = 0x8000_0000;

/**
 * SLIP-10 derivation for ed25519 (hardened levels only, which is all ed25519 allows). Returns the
 * 32-byte private key of the path.
 */
export function slip10Ed25519(seed: Uint8Array, path: string): Uint8Array {
  const levels = path.split('/');
  if (levels[0] !== 'm') throw new Error(`derivation path ${path} must start with m`);
  let node = hmac(sha512, new TextEncoder().encode('ed25519 seed'), seed);
  for (const level of levels.slice(1)) {
    const match = /^(\d+)'$/.exec(level);
    if (!match) throw new Error(`ed25519 derivation needs hardened levels; ${level} is not`);
    const index = Number(match[1]);
    if (index >= HARDENED) throw new Error(`derivation index ${index} is too large`);
    const data = new Uint8Array(37);
    data.set(node.subarray(0, 32), 1);
    new DataView(data.buffer).setUint32(33, index + HARDENED);
    const next = hmac(sha512, node.subarray(32), data);
    node.fill(0);
    data.fill(0);
    node = next;
  }
  const privateKey = Uint8Array.from(node.subarray(0, 32));
  node.fill(0);
  return privateKey;
}
