import { parseAbi } from 'viem';

/**
 * Common functions, for a call whose BApp gave no ABI (`encoded_function_call`): the token
 * standards' transfers and approvals, and a few calls wallets meet often. A selector names a
 * function only by its signature, so the screen says the name was recognised, not given.
 */
export const KNOWN_FUNCTIONS = parseAbi([
  'function transfer(address to, uint256 amount) returns (bool)',
  'function transferFrom(address from, address to, uint256 amountOrTokenId)',
  'function approve(address spender, uint256 amountOrTokenId)',
  'function increaseAllowance(address spender, uint256 addedValue) returns (bool)',
  'function decreaseAllowance(address spender, uint256 subtractedValue) returns (bool)',
  'function setApprovalForAll(address operator, bool approved)',
  'function safeTransferFrom(address from, address to, uint256 tokenId)',
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
  'function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)',
  'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] amounts, bytes data)',
  'function mint(address to, uint256 amount)',
  'function burn(uint256 amountOrTokenId)',
  'function deposit()',
  'function withdraw(uint256 amount)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function multicall(bytes[] data) returns (bytes[] results)',
]);
