/**
 * The app's own words for a form the browser would refuse. Forms are `novalidate`: the browser
 * still checks each field's constraints (required, pattern, minLength, type), but the member reads
 * the field's `data-missing` or `data-invalid` text, not the browser's. The first field in trouble
 * is marked `aria-invalid` and takes the focus.
 */
export function formProblem(form: HTMLFormElement): string | null {
  const fields = Array.from(form.elements).filter(
    (element): element is HTMLInputElement | HTMLSelectElement => element instanceof HTMLInputElement || element instanceof HTMLSelectElement,
  );
  for (const field of fields) field.removeAttribute('aria-invalid');
  const wrong = fields.find((field) => !field.validity.valid);
  if (!wrong) return null;
  wrong.setAttribute('aria-invalid', 'true');
  wrong.focus();
  const label = wrong.labels?.[0]?.textContent?.replace(/\s*\(.*\)\s*$/, '').trim() || wrong.name;
  if (wrong.validity.valueMissing) return wrong.dataset.missing ?? `Please fill in ${label}.`;
  return wrong.dataset.invalid ?? `Please check ${label}.`;
}
