import { cardNftAbi } from '@wallet-service/contracts';
import { parseAbi, zeroAddress, type Address } from 'viem';
import type { ChainContext } from '../../chain/chains.ts';
import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';

/** The all-zero token contract of send_token: the native coin, 18 decimals. */
export const NATIVE_COIN_CONTRACT = zeroAddress;
export const NATIVE_COIN_DECIMALS = 18;

export const erc20Abi = parseAbi([
  'function decimals() view returns (uint8)',
  'function balanceOf(address owner) view returns (uint256)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error ERC20InvalidReceiver(address receiver)',
  'error ERC20InvalidSender(address sender)',
]);

export const erc721Abi = parseAbi([
  'function name() view returns (string)',
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function tokenURI(uint256 tokenId) view returns (string)',
  'function supportsInterface(bytes4 interfaceId) view returns (bool)',
  'function safeTransferFrom(address from, address to, uint256 tokenId)',
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'error ERC721NonexistentToken(uint256 tokenId)',
  'error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)',
  'error ERC721InsufficientApproval(address operator, uint256 tokenId)',
  'error ERC721InvalidReceiver(address receiver)',
]);

const ERC721_INTERFACE_ID = '0x80ac58cd';

/** Error items of the token standards and of our card contract, for naming custom reverts. */
export const knownErrorAbi = [
  ...erc20Abi.filter((item) => item.type === 'error'),
  ...erc721Abi.filter((item) => item.type === 'error'),
  ...cardNftAbi.filter((item) => item.type === 'error'),
];

/** Whether the address holds contract code. */
export async function hasCode(chain: ChainContext, address: Address): Promise<boolean> {
  const code = await chain.client.getCode({ address });
  return Boolean(code && code !== '0x');
}

/** `decimals()` of an ERC-20, or undefined when the contract does not answer like one. */
export async function tokenDecimals(chain: ChainContext, contract: Address): Promise<number | undefined> {
  try {
    const decimals = await chain.client.readContract({ address: contract, abi: erc20Abi, functionName: 'decimals' });
    return Number(decimals);
  } catch {
    return undefined;
  }
}

/**
 * Refuses (6412) a token transfer that the holder's balance cannot cover: at prepare (with `from`)
 * and again at approval, so a BApp sees one code for one cause rather than the token's revert.
 */
export async function assertTokenBalance(chain: ChainContext, contract: Address, holder: Address, units: bigint): Promise<void> {
  const balance = await chain.client.readContract({ address: contract, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
  if (balance < units) throw new AppError(Errors.InsufficientFunds, { detail: `${holder} holds ${balance} units; ${units} are needed` });
}

/** Whether the contract reports ERC-721 through ERC-165. */
export async function isErc721(chain: ChainContext, contract: Address): Promise<boolean> {
  try {
    return await chain.client.readContract({
      address: contract,
      abi: erc721Abi,
      functionName: 'supportsInterface',
      args: [ERC721_INTERFACE_ID],
    });
  } catch {
    return false;
  }
}

/** The holder of a card, or undefined when it does not exist. */
export async function cardOwner(chain: ChainContext, contract: Address, cardId: bigint): Promise<Address | undefined> {
  try {
    const owner = await chain.client.readContract({ address: contract, abi: erc721Abi, functionName: 'ownerOf', args: [cardId] });
    return owner.toLowerCase() as Address;
  } catch {
    return undefined;
  }
}
