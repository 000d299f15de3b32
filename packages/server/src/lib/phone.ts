import { getCountries, getCountryCallingCode, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';

/** The E.164 form of a phone number, or undefined when it is not a valid number. */
export function normalizePhone(input: string, defaultCountry: string): string | undefined {
  const parsed = parsePhoneNumberFromString(input.trim(), defaultCountry as CountryCode);
  return parsed?.isValid() ? parsed.number : undefined;
}

/** Whether a string reads as a phone number (used to tell the phone of a [name, phone] pair). */
export function looksLikePhone(input: string, defaultCountry: string): boolean {
  return /^[+\d][\d\s().-]{5,}$/.test(input.trim()) && normalizePhone(input, defaultCountry) !== undefined;
}

/** Every region libphonenumber knows, with its calling code (the wallet app's country picker). */
export function phoneCountries(): Array<{ country: string; calling_code: string }> {
  return getCountries().map((country) => ({ country, calling_code: getCountryCallingCode(country) }));
}

/**
 * A phone as a person writes it (`010-1234-5678`) with the region they picked, in E.164; without a
 * region the phone is passed on as it is (read later in `phoneDefaultCountry`). 400 for a region
 * libphonenumber does not know or a number that is not valid in it.
 */
export function phoneInCountry(phone: string, country: string | undefined): string {
  if (country === undefined) return phone;
  if (!(getCountries() as string[]).includes(country)) throw new AppError(Errors.BadRequest, { detail: `phone_country ${country} is not a known region` });
  const e164 = normalizePhone(phone, country);
  if (!e164) throw new AppError(Errors.BadRequest, { detail: `phone is not a valid phone number in ${country}` });
  return e164;
}
