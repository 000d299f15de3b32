import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/** The E.164 form of a phone number, or undefined when it is not a valid number. */
export function normalizePhone(input: string, defaultCountry: string): string | undefined {
  const parsed = parsePhoneNumberFromString(input.trim(), defaultCountry as CountryCode);
  return parsed?.isValid() ? parsed.number : undefined;
}

/** Whether a string reads as a phone number (used to tell the phone of a [name, phone] pair). */
export function looksLikePhone(input: string, defaultCountry: string): boolean {
  return /^[+\d][\d\s().-]{5,}$/.test(input.trim()) && normalizePhone(input, defaultCountry) !== undefined;
}
