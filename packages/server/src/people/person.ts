import { AppError } from '../errors/app-error.ts';
import { normalizePhone } from '../lib/phone.ts';
import { Errors } from '../errors/codes.ts';

/** A person named by a partner: the name as a member would sign up with it, and an E.164 phone. */
export interface Person {
  name: string;
  /** E.164. */
  phone: string;
}

/** Longest name a to_person pair may give. */
export const MAX_PERSON_NAME_LENGTH = 100;

/** Names are compared trimmed, with every run of inner whitespace collapsed to one space. */
export function normalizePersonName(name: string): string {
  return name.trim().replace(/\s+/g, ' ');
}

/** One string per person: its phone and name (E.164 holds no space, so the split is unambiguous). */
export function personKey(person: Person): string {
  return `${person.phone} ${person.name}`;
}

/** The E.164 form of a string made only of phone characters (`+`, digits, spaces, `()-.`); else undefined. */
function phoneIn(value: string, defaultCountry: string): string | undefined {
  if (!/^\+?[\d\s().-]{6,}$/.test(value.trim())) return undefined;
  return normalizePhone(value, defaultCountry);
}

/**
 * Parses one to_person pair: `[name, phone]`, or `[phone, name]` when only one of the two reads as a
 * phone number. The phone is normalised to E.164 (numbers without `+<country code>` are read in
 * `defaultCountry`), the name trimmed with inner whitespace collapsed. AppError 400 whose detail
 * names `to_person[<index>]` otherwise: not a pair of two strings, no valid phone number, two phone
 * numbers, an empty or too long name.
 *
 * @example parsePersonPair(['Kim  Lee', '(415) 555-0100'], 0, 'US') // { name: 'Kim Lee', phone: '+14155550100' }
 */
export function parsePersonPair(pair: unknown, index: number, defaultCountry: string): Person {
  const where = `to_person[${index}]`;
  if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
    throw new AppError(Errors.BadRequest, { detail: `${where} must be a [name, phone] pair of two strings` });
  }
  const [first, second] = pair as [string, string];
  const firstPhone = phoneIn(first, defaultCountry);
  const secondPhone = phoneIn(second, defaultCountry);
  if (firstPhone && secondPhone) throw new AppError(Errors.BadRequest, { detail: `${where} holds two phone numbers and no name` });
  const phone = secondPhone ?? firstPhone;
  if (!phone) throw new AppError(Errors.BadRequest, { detail: `${where} holds no valid phone number` });
  const name = normalizePersonName(secondPhone ? first : second);
  if (!name) throw new AppError(Errors.BadRequest, { detail: `${where} has an empty name` });
  if (name.length > MAX_PERSON_NAME_LENGTH) throw new AppError(Errors.BadRequest, { detail: `${where} has a name longer than ${MAX_PERSON_NAME_LENGTH} characters` });
  return { name, phone };
}

/** The people of a list once each, in the order of their first appearance. */
export function distinctPeople(people: readonly Person[]): Person[] {
  const seen = new Map<string, Person>();
  for (const person of people) if (!seen.has(personKey(person))) seen.set(personKey(person), person);
  return [...seen.values()];
}
