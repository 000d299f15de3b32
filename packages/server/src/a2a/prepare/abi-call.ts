import { encodeFunctionData, isAddress, isHex, type AbiFunction, type AbiParameter, type Hex } from 'viem';
import { arrayRegex, bytesRegex, integerRegex } from 'viem/utils';
import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';
import { jsonNestingExceeds, MAX_JSON_TEXT_DEPTH } from '../../http/json-bounds.ts';

/** A function ABI that passed validation, with any error items given beside it. */
export interface ParsedAbi {
  fn: AbiFunction;
  /** The function and the error items given beside it, with only the fields ABI JSON defines: kept for showing and for decoding revert data. */
  items: unknown[];
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Reads `abi` of execute_contract: one function item, as an object, as an array holding exactly one
 * function (error and event items may sit beside it), or as JSON text of either. Refuses (6407)
 * anything else, including unknown parameter types.
 */
export function parseFunctionAbi(raw: unknown): ParsedAbi {
  let value = raw;
  if (typeof value === 'string') {
    if (jsonNestingExceeds(value, MAX_JSON_TEXT_DEPTH)) throw new AppError(Errors.InvalidAbi, { detail: `abi is nested deeper than ${MAX_JSON_TEXT_DEPTH} levels` });
    try {
      value = JSON.parse(value);
    } catch {
      throw new AppError(Errors.InvalidAbi, { detail: 'abi is not valid JSON' });
    }
  }
  const items = Array.isArray(value) ? value : [value];
  const functions = items.filter((item) => isObject(item) && (item.type === 'function' || item.type === undefined));
  if (functions.length !== 1) throw new AppError(Errors.InvalidAbi, { detail: 'abi must hold exactly one function item' });
  const fn = functions[0] as Record<string, unknown>;
  if (typeof fn.name !== 'string' || !IDENTIFIER.test(fn.name)) throw new AppError(Errors.InvalidAbi, { detail: 'the function has no valid name' });
  if (fn.inputs !== undefined && !Array.isArray(fn.inputs)) throw new AppError(Errors.InvalidAbi, { detail: 'inputs must be an array' });
  const inputs = (fn.inputs ?? []) as unknown[];
  inputs.forEach((input, index) => checkParameter(input, `input ${index}`));
  const outputs = Array.isArray(fn.outputs) ? fn.outputs : [];
  return {
    fn: {
      type: 'function',
      name: fn.name,
      inputs: inputs as AbiParameter[],
      outputs: outputs as AbiParameter[],
      stateMutability: (['pure', 'view', 'nonpayable', 'payable'].includes(fn.stateMutability as string)
        ? fn.stateMutability
        : 'nonpayable') as AbiFunction['stateMutability'],
    },
    items: [abiItem({ ...fn, type: 'function' }), ...items.filter((item) => isObject(item) && item.type === 'error').map(abiItem)],
  };
}

/**
 * An ABI item with only the fields ABI JSON defines (unknown fields are not kept). Parameters past
 * MAX_ABI_NESTING (an error item's are not otherwise checked) are refused (6407).
 */
function abiItem(item: Record<string, unknown>): Record<string, unknown> {
  const parameters = (list: unknown, nesting: number): unknown[] | undefined => {
    if (!Array.isArray(list)) return undefined;
    if (nesting > MAX_ABI_NESTING) throw new AppError(Errors.InvalidAbi, { detail: `${String(item.name)} nests tuples more than ${MAX_ABI_NESTING} levels deep` });
    return list.filter(isObject).map((parameter) => pick(parameter, ['name', 'type', 'internalType', 'indexed'], { components: parameters(parameter.components, nesting + 1) }));
  };
  return pick(item, ['type', 'name', 'stateMutability'], { inputs: parameters(item.inputs, 0), outputs: parameters(item.outputs, 0) });
}

/** The named fields of an object that are present, and the extra ones that are defined. */
function pick(from: Record<string, unknown>, names: string[], extra: Record<string, unknown>): Record<string, unknown> {
  const picked = Object.fromEntries(names.filter((name) => from[name] !== undefined).map((name) => [name, from[name]]));
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) picked[name] = value;
  return picked;
}

/**
 * Array dimensions and tuples nested in one parameter, at most. Real contracts stay far below; a
 * bound keeps checking, coercing and encoding a hostile ABI (thousands of levels in a few kB) from
 * running out of stack.
 */
export const MAX_ABI_NESTING = 16;

function checkParameter(parameter: unknown, where: string, nesting = 0): void {
  if (!isObject(parameter) || typeof parameter.type !== 'string') throw new AppError(Errors.InvalidAbi, { detail: `${where} has no type` });
  if (parameter.name !== undefined && typeof parameter.name !== 'string') throw new AppError(Errors.InvalidAbi, { detail: `${where} has an invalid name` });
  // Counted before the type is taken apart: splitting thousands of suffixes one by one is slow too.
  const dimensions = parameter.type.split('[').length - 1;
  const base = dimensions + nesting > MAX_ABI_NESTING ? undefined : baseType(parameter.type);
  const depth = nesting + dimensions + (base === 'tuple' ? 1 : 0);
  if (base === undefined || depth > MAX_ABI_NESTING) {
    throw new AppError(Errors.InvalidAbi, { detail: `${where} nests arrays and tuples more than ${MAX_ABI_NESTING} levels deep` });
  }
  if (base === 'tuple') {
    if (!Array.isArray(parameter.components)) throw new AppError(Errors.InvalidAbi, { detail: `${where} is a tuple without components` });
    parameter.components.forEach((component, index) => checkParameter(component, `${where}.${index}`, depth));
    return;
  }
  if (!isElementaryType(base)) throw new AppError(Errors.InvalidAbi, { detail: `${where} has unsupported type ${parameter.type}` });
}

/** The type without its array suffixes: `uint8[2][]` → `uint8`. */
function baseType(type: string): string {
  let current = type;
  for (let match = arrayRegex.exec(current); match; match = arrayRegex.exec(current)) current = match[1]!;
  return current;
}

/** viem's grammar of ABI types: (u)int<8..256 by 8>, bytes<1..32>, bytes, address, bool, string. */
function isElementaryType(type: string): boolean {
  return type === 'address' || type === 'bool' || type === 'string' || integerRegex.test(type) || bytesRegex.test(type);
}

/**
 * Checks `params` against the function's inputs and converts them to what the encoder takes
 * (integers as bigint; tuples given as arrays or as objects by component name). Refuses (6408)
 * with a message that names the argument (`order.amount`, `ids[2]`) and the mismatch.
 */
export function coerceParams(fn: AbiFunction, raw: unknown): unknown[] {
  let params = raw;
  if (typeof params === 'string') {
    if (jsonNestingExceeds(params, MAX_JSON_TEXT_DEPTH)) throw new AppError(Errors.InvalidParams, { detail: `params is nested deeper than ${MAX_JSON_TEXT_DEPTH} levels` });
    try {
      params = JSON.parse(params);
    } catch {
      throw new AppError(Errors.InvalidParams, { detail: 'params is not valid JSON' });
    }
  }
  if (!Array.isArray(params)) throw new AppError(Errors.InvalidParams, { detail: 'params must be an array' });
  if (params.length !== fn.inputs.length) {
    throw new AppError(Errors.InvalidParams, { detail: `${fn.name} takes ${fn.inputs.length} arguments; ${params.length} were given` });
  }
  return fn.inputs.map((input, index) => coerceValue(input, params[index], input.name || `#${index}`));
}

/** ABI-encodes the call; the arguments come from coerceParams. */
export function encodeCall(fn: AbiFunction, args: unknown[]): Hex {
  try {
    return encodeFunctionData({ abi: [fn], functionName: fn.name, args } as never);
  } catch (error) {
    throw new AppError(Errors.InvalidParams, { detail: (error as { shortMessage?: string }).shortMessage ?? (error as Error).message });
  }
}

/** `transfer(address to, uint256 amount)`: how the wallet app shows the function. */
export function describeFunction(fn: AbiFunction): string {
  return `${fn.name}(${fn.inputs.map((input) => describeParameter(input)).join(', ')})`;
}

function describeParameter(parameter: AbiParameter): string {
  const type = parameter.type.startsWith('tuple')
    ? `(${((parameter as { components?: AbiParameter[] }).components ?? []).map(describeParameter).join(', ')})${parameter.type.slice(5)}`
    : parameter.type;
  return parameter.name ? `${type} ${parameter.name}` : type;
}

function coerceValue(parameter: AbiParameter, value: unknown, path: string): unknown {
  const type = parameter.type;
  const mismatch = (expected: string) =>
    new AppError(Errors.InvalidParams, { detail: `argument ${path} (${type}): expected ${expected}, got ${show(value)}` });

  const array = arrayRegex.exec(type);
  if (array) {
    const length = array[2] === '' ? undefined : Number(array[2]);
    if (!Array.isArray(value)) throw mismatch(length === undefined ? 'an array' : `an array of ${length}`);
    if (length !== undefined && value.length !== length) throw mismatch(`an array of ${length}`);
    const element = { ...parameter, type: array[1]! } as AbiParameter;
    return value.map((item, index) => coerceValue(element, item, `${path}[${index}]`));
  }
  if (type === 'tuple') {
    const components = (parameter as { components: readonly AbiParameter[] }).components;
    if (Array.isArray(value)) {
      if (value.length !== components.length) throw mismatch(`a tuple of ${components.length} values`);
      return components.map((component, index) => coerceValue(component, value[index], `${path}.${component.name || index}`));
    }
    if (!isObject(value)) throw mismatch('a tuple (array or object)');
    const named = components.every((component) => component.name);
    if (!named) throw mismatch(`an array of ${components.length} values`);
    const extra = Object.keys(value).filter((key) => !components.some((component) => component.name === key));
    if (extra.length) throw new AppError(Errors.InvalidParams, { detail: `argument ${path}.${extra[0]}: not a component of ${path}` });
    const result: Record<string, unknown> = {};
    for (const component of components) {
      if (!(component.name! in value)) throw new AppError(Errors.InvalidParams, { detail: `argument ${path}.${component.name} (${component.type}): missing` });
      result[component.name!] = coerceValue(component, value[component.name!], `${path}.${component.name}`);
    }
    return result;
  }
  if (type === 'address') {
    if (typeof value !== 'string' || !isAddress(value, { strict: true })) throw mismatch('an address');
    return value;
  }
  if (type === 'bool') {
    if (typeof value !== 'boolean') throw mismatch('true or false');
    return value;
  }
  if (type === 'string') {
    if (typeof value !== 'string') throw mismatch('a string');
    return value;
  }
  if (type === 'bytes') {
    if (typeof value !== 'string' || !isHex(value, { strict: true }) || value.length % 2 !== 0) throw mismatch('0x-prefixed hex bytes');
    return value;
  }
  const fixed = bytesRegex.exec(type);
  if (fixed?.[1]) {
    const size = Number(fixed[1]);
    if (typeof value !== 'string' || !isHex(value, { strict: true }) || value.length !== 2 + size * 2) {
      throw mismatch(`${size} bytes as 0x-prefixed hex`);
    }
    return value;
  }
  const integer = integerRegex.exec(type);
  if (integer) {
    const signed = integer[1] === 'int';
    const bits = integer[2] ? Number(integer[2]) : 256;
    const parsed = parseInteger(value);
    if (parsed === undefined) throw mismatch('an integer (number, decimal string or 0x hex string)');
    const min = signed ? -(2n ** BigInt(bits - 1)) : 0n;
    const max = signed ? 2n ** BigInt(bits - 1) - 1n : 2n ** BigInt(bits) - 1n;
    if (parsed < min || parsed > max) {
      throw new AppError(Errors.InvalidParams, { detail: `argument ${path} (${type}): ${parsed} is out of range ${min} to ${max}` });
    }
    return parsed;
  }
  throw new AppError(Errors.InvalidAbi, { detail: `unsupported type ${type}` });
}

function parseInteger(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^-?\d+$/.test(text)) return BigInt(text);
  if (/^0x[0-9a-fA-F]+$/.test(text)) return BigInt(text);
  return undefined;
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
