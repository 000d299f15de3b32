import { maxUint256, type Address } from 'viem';

/** EIP-2612 and Permit2 typed data as dapps ask for them (spender and token named by address). */
export function permitTypedData(token: Address, owner: Address, spender: Address) {
  return {
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Permit',
    domain: { name: 'Six', version: '1', chainId: 31337, verifyingContract: token },
    message: { owner, spender, value: maxUint256.toString(), nonce: '0', deadline: '1893456000' },
  };
}

export function permit2TypedData(token: Address, spender: Address) {
  return {
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      PermitDetails: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint160' },
        { name: 'expiration', type: 'uint48' },
        { name: 'nonce', type: 'uint48' },
      ],
      PermitSingle: [
        { name: 'details', type: 'PermitDetails' },
        { name: 'spender', type: 'address' },
        { name: 'sigDeadline', type: 'uint256' },
      ],
    },
    primaryType: 'PermitSingle',
    domain: { name: 'Permit2', chainId: 31337, verifyingContract: '0x000000000022D473030F116dDEE9F6B43aC78BA3' },
    message: { details: { token, amount: (2n ** 160n - 1n).toString(), expiration: '1893456000', nonce: '0' }, spender, sigDeadline: '1893456000' },
  };
}
