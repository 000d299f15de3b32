// scripts/test-scrypt-memo.mjs exports nothing: loading it replaces crypto.scrypt in the process.
export {};
