import type { ComponentChildren, JSX } from 'preact';
import { decodeFunctionData, toFunctionSelector, type Abi, type AbiFunction, type AbiParameter, type Hex } from 'viem';
import { address } from '../format.ts';
import { Mono } from './screen.tsx';
import { KNOWN_FUNCTIONS } from './known-selectors.ts';

/** EIP-712 typed data, as a request's `typed_data` carries it (the service's schema leaves it open). */
export interface TypedData {
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}

/** A decoded contract call: the function and each argument with its ABI parameter. */
export interface DecodedCall {
  name: string;
  inputs: readonly AbiParameter[];
  args: readonly unknown[];
  /** Named from the selector by the built-in table, not by an ABI the BApp gave. */
  recognised?: boolean;
}

/**
 * Decodes calldata with the ABI the BApp gave at prepare (the function whose selector it starts
 * with), or, without one, with the built-in table of common functions (`recognised` is then true).
 */
export function decodeCall(abi: unknown[] | undefined, data: string): DecodedCall | null {
  if (!abi || abi.length === 0) {
    const known = decodeCall(KNOWN_FUNCTIONS as unknown as unknown[], data);
    return known && { ...known, recognised: true };
  }
  try {
    const { functionName, args } = decodeFunctionData({ abi: abi as Abi, data: data as Hex });
    const selector = data.slice(0, 10).toLowerCase();
    const item = (abi as Abi).find(
      (entry): entry is AbiFunction => entry.type === 'function' && entry.name === functionName && toFunctionSelector(entry) === selector,
    );
    return item ? { name: functionName, inputs: item.inputs, args: args ?? [] } : null;
  } catch {
    return null;
  }
}

/** One ABI value as the member reads it: numbers in full, addresses checksummed, tuples and arrays nested. */
export function AbiValue(props: { parameter: AbiParameter; value: unknown }): JSX.Element {
  const { parameter, value } = props;
  const array = /^(.*)\[(\d*)\]$/.exec(parameter.type);
  if (array && Array.isArray(value)) {
    const element = { ...parameter, type: array[1]! } as AbiParameter;
    if (value.length === 0) return <span class="muted">empty list</span>;
    return (
      <ol class="tree" start={0}>
        {value.map((item, index) => (
          <li key={index}>
            <AbiValue parameter={element} value={item} />
          </li>
        ))}
      </ol>
    );
  }
  if (parameter.type === 'tuple' && 'components' in parameter) {
    return (
      <dl class="tree">
        {parameter.components.map((component, index) => {
          const item = Array.isArray(value) ? value[index] : (value as Record<string, unknown>)[component.name ?? ''];
          return (
            <div key={index}>
              <dt>
                {component.name || `#${index}`} <span class="type">{component.type}</span>
              </dt>
              <dd>
                <AbiValue parameter={component} value={item} />
              </dd>
            </div>
          );
        })}
      </dl>
    );
  }
  return <Scalar type={parameter.type} value={value} />;
}

function Scalar(props: { type: string; value: unknown }): JSX.Element {
  const { type, value } = props;
  if (type === 'address' && typeof value === 'string') return <Mono>{address(value)}</Mono>;
  if (type === 'bool') return <span>{value ? 'true' : 'false'}</span>;
  if (type === 'string') return <span class="quoted">{String(value)}</span>;
  if (typeof value === 'bigint' || typeof value === 'number') return <span>{value.toString()}</span>;
  if (type.startsWith('bytes')) return <Mono>{String(value)}</Mono>;
  return <span>{typeof value === 'string' ? value : JSON.stringify(value)}</span>;
}

/** The arguments of a decoded call, one row each with its name and type. */
export function CallArguments(props: { call: DecodedCall }) {
  if (props.call.inputs.length === 0) return <span class="muted">none</span>;
  return (
    <dl class="tree">
      {props.call.inputs.map((input, index) => (
        <div key={index}>
          <dt>
            {input.name || `#${index}`} <span class="type">{input.type}</span>
          </dt>
          <dd>
            <AbiValue parameter={input} value={props.call.args[index]} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** EIP-712 data as a tree: each field with its type, structs nested by the types the data declares. */
export function TypedValue(props: { types: TypedData['types']; type: string; value: unknown }): JSX.Element {
  const { types, type, value } = props;
  const array = /^(.*)\[(\d*)\]$/.exec(type);
  if (array && Array.isArray(value)) {
    if (value.length === 0) return <span class="muted">empty list</span>;
    return (
      <ol class="tree" start={0}>
        {value.map((item, index) => (
          <li key={index}>
            <TypedValue types={types} type={array[1]!} value={item} />
          </li>
        ))}
      </ol>
    );
  }
  const fields = types[type];
  if (fields && typeof value === 'object' && value !== null) {
    return <TypedFields types={types} fields={fields} value={value as Record<string, unknown>} />;
  }
  return <Scalar type={type} value={value} />;
}

export function TypedFields(props: {
  types: TypedData['types'];
  fields: Array<{ name: string; type: string }>;
  value: Record<string, unknown>;
}): JSX.Element {
  return (
    <dl class="tree">
      {props.fields.map((field) => (
        <div key={field.name}>
          <dt>
            {field.name} <span class="type">{field.type}</span>
          </dt>
          <dd>
            <TypedValue types={props.types} type={field.type} value={props.value[field.name]} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The EIP712Domain fields in the order the standard lists them, typed by the data's own declaration. */
const DOMAIN_FIELDS = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
  { name: 'salt', type: 'bytes32' },
];

export function TypedDomain(props: { data: TypedData }) {
  const declared = props.data.types.EIP712Domain ?? DOMAIN_FIELDS.filter((field) => props.data.domain[field.name] !== undefined);
  return <TypedFields types={props.data.types} fields={declared} value={props.data.domain} />;
}

export function Block(props: { children: ComponentChildren; label: string }) {
  return (
    <pre class="block" aria-label={props.label} tabIndex={0}>
      {props.children}
    </pre>
  );
}
