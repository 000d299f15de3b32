/** Formatters by time zone and shape: building one takes about half a millisecond, using one microseconds. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string, withDay: boolean): Intl.DateTimeFormat {
  const key = `${withDay ? 'day' : 'month'} ${timeZone}`;
  let format = formatters.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', ...(withDay ? { day: '2-digit' } : {}) });
    formatters.set(key, format);
  }
  return format;
}

/** `YYYY-MM` of a moment in a time zone: the period that monthly limits count. */
export function monthKey(date: Date, timeZone: string): string {
  const parts = formatter(timeZone, false).formatToParts(date);
  const year = parts.find((part) => part.type === 'year')!.value;
  const month = parts.find((part) => part.type === 'month')!.value;
  return `${year}-${month}`;
}

/** `YYYY-MM-DD` of a moment in a time zone: the period that daily limits count. */
export function dayKey(date: Date, timeZone: string): string {
  return formatter(timeZone, true).format(date);
}
