/**
 * A phone number for logs with its middle digits hidden: `+14155550100` -> `+141*****100`. At most
 * three digits stay at each end, fewer for short numbers.
 */
export function maskPhone(phone: string): string {
  const keep = Math.min(3, Math.floor(phone.length / 4));
  const head = phone.slice(0, keep + 1);
  const tail = keep > 0 ? phone.slice(-keep) : '';
  return `${head}${'*'.repeat(Math.max(phone.length - head.length - tail.length, 0))}${tail}`;
}
