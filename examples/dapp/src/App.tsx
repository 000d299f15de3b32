import { useState, type FormEvent } from 'react';
import { isAddress, parseEther, type Address } from 'viem';
import {
  useChainId,
  useChains,
  useConnect,
  useConnection,
  useConnectors,
  useDisconnect,
  useReadContract,
  useSendTransaction,
  useSignMessage,
  useSignTypedData,
  useSwitchChain,
  useWaitForTransactionReceipt,
  useWriteContract,
} from 'wagmi';
import { mailTypedData } from './mail.ts';

/** The contract this page writes to: `add(x)` adds x to `total` (x below 100), coins sent along are kept. */
const counterAbi = [
  { type: 'function', name: 'add', stateMutability: 'payable', inputs: [{ name: 'x', type: 'uint256' }], outputs: [] },
  { type: 'function', name: 'total', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'uint256' }] },
] as const;

/** "Error 4001: User rejected the request." from any error wagmi or viem throws. */
function describeError(error: unknown): string {
  let code: number | undefined;
  for (let cause = error as { code?: unknown; cause?: unknown } | undefined; cause; cause = cause.cause as typeof cause) {
    if (typeof cause.code === 'number') {
      code = cause.code;
      break;
    }
  }
  const words = (error as { shortMessage?: string }).shortMessage ?? (error as Error).message;
  return code === undefined ? words : `Error ${code}: ${words}`;
}

function Problem({ id, error }: { id: string; error: unknown }) {
  if (!error) return null;
  return (
    <p id={id} className="error" role="alert">
      {describeError(error)}
    </p>
  );
}

function Receipt({ id, hash }: { id: string; hash: `0x${string}` | undefined }) {
  const receipt = useWaitForTransactionReceipt({ hash });
  if (!hash) return null;
  return (
    <dl id={id}>
      <dt>Transaction</dt>
      <dd className="mono hash">{hash}</dd>
      <dt>Status</dt>
      <dd className="status">{receipt.data ? receipt.data.status : receipt.isError ? 'unknown' : 'pending'}</dd>
    </dl>
  );
}

function Connect() {
  const connectors = useConnectors();
  const connect = useConnect();
  return (
    <section>
      <h2>Connect a wallet</h2>
      {connectors.map((connector) => (
        <button key={connector.uid} id={`connect-${connector.id}`} type="button" className="primary" disabled={connect.isPending} onClick={() => connect.mutate({ connector })}>
          {connect.isPending ? 'Confirm in your wallet…' : `Connect ${connector.name}`}
        </button>
      ))}
      <Problem id="connect-error" error={connect.error} />
    </section>
  );
}

function SendCoins() {
  const [to, setTo] = useState('');
  const [amount, setAmount] = useState('0.1');
  const send = useSendTransaction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate({ to: to as Address, value: parseEther(amount) });
  };
  return (
    <form id="send" onSubmit={submit}>
      <h2>Send coins</h2>
      <label>
        To <input id="send-to" required value={to} onChange={(event) => setTo(event.target.value.trim())} placeholder="0x…" autoComplete="off" />
      </label>
      <label>
        Amount <input id="send-amount" required value={amount} onChange={(event) => setAmount(event.target.value.trim())} inputMode="decimal" autoComplete="off" />
      </label>
      <button type="submit" className="primary" disabled={send.isPending || !isAddress(to)}>
        Send
      </button>
      <Problem id="send-error" error={send.error} />
      <Receipt id="send-receipt" hash={send.data} />
    </form>
  );
}

function Counter() {
  const [address, setAddress] = useState('');
  const [x, setX] = useState('1');
  const contract = isAddress(address) ? address : undefined;
  const total = useReadContract({ address: contract, abi: counterAbi, functionName: 'total', query: { enabled: Boolean(contract) } });
  const write = useWriteContract();
  const receipt = useWaitForTransactionReceipt({ hash: write.data, query: { enabled: Boolean(write.data) } });
  const [seen, setSeen] = useState<string>();
  if (receipt.data && seen !== receipt.data.transactionHash) {
    setSeen(receipt.data.transactionHash);
    void total.refetch();
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    write.mutate({ address: contract!, abi: counterAbi, functionName: 'add', args: [BigInt(x)] });
  };
  return (
    <form id="write" onSubmit={submit}>
      <h2>Write a contract</h2>
      <label>
        Contract <input id="contract-address" required value={address} onChange={(event) => setAddress(event.target.value.trim())} placeholder="0x…" autoComplete="off" />
      </label>
      <p>
        Total: <output id="contract-total">{total.data === undefined ? '–' : total.data.toString()}</output>
      </p>
      <label>
        Add <input id="contract-x" required value={x} onChange={(event) => setX(event.target.value.trim())} inputMode="numeric" autoComplete="off" />
      </label>
      <button type="submit" className="primary" disabled={write.isPending || !contract || !/^\d+$/.test(x)}>
        Add
      </button>
      <Problem id="write-error" error={write.error} />
      <Receipt id="write-receipt" hash={write.data} />
    </form>
  );
}

function SignMessage() {
  const [message, setMessage] = useState('Sign in to Example dapp');
  const sign = useSignMessage();
  return (
    <form
      id="sign"
      onSubmit={(event) => {
        event.preventDefault();
        sign.mutate({ message });
      }}
    >
      <h2>Sign a message</h2>
      <label>
        Message <textarea id="sign-text" required rows={2} value={message} onChange={(event) => setMessage(event.target.value)} />
      </label>
      <button type="submit" className="primary" disabled={sign.isPending}>
        Sign
      </button>
      <Problem id="sign-error" error={sign.error} />
      {sign.data && <p id="sign-signature" className="mono">{sign.data}</p>}
    </form>
  );
}

function SignTypedData({ account }: { account: Address }) {
  const chainId = useChainId();
  const sign = useSignTypedData();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    sign.mutate(mailTypedData(chainId, account));
  };
  return (
    <form id="typed" onSubmit={submit}>
      <h2>Sign typed data</h2>
      <p>A mail from you to Bob (EIP-712).</p>
      <button type="submit" className="primary" disabled={sign.isPending}>
        Sign the mail
      </button>
      <Problem id="typed-error" error={sign.error} />
      {sign.data && <p id="typed-signature" className="mono">{sign.data}</p>}
    </form>
  );
}

function Connected({ address }: { address: Address }) {
  const chains = useChains();
  const chainId = useChainId();
  const switchChain = useSwitchChain();
  const disconnect = useDisconnect();
  return (
    <>
      <section>
        <p>
          Connected: <code id="account">{address}</code>
        </p>
        <label>
          Chain{' '}
          <select id="chain" value={chainId} onChange={(event) => switchChain.mutate({ chainId: Number(event.target.value) })}>
            {chains.map((chain) => (
              <option key={chain.id} value={chain.id}>
                {chain.name} ({chain.id})
              </option>
            ))}
          </select>
        </label>{' '}
        <button id="disconnect" type="button" onClick={() => disconnect.mutate()}>
          Disconnect
        </button>
        <Problem id="chain-error" error={switchChain.error} />
      </section>
      <SendCoins />
      <Counter />
      <SignMessage />
      <SignTypedData account={address} />
    </>
  );
}

export function App() {
  const connection = useConnection();
  return (
    <main>
      <h1>Example dapp</h1>
      <p className="lead">A page written with React, wagmi and viem. It knows one wallet connector, and nothing of how the wallet is reached.</p>
      <p id="status">{connection.status}</p>
      {connection.address ? <Connected address={connection.address} /> : <Connect />}
    </main>
  );
}
