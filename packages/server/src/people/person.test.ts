import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../errors/app-error.ts';
import { distinctPeople, MAX_PERSON_NAME_LENGTH, normalizePersonName, parsePersonPair } from './person.ts';

function refusedWith(detail: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof AppError, `expected AppError 400, got ${String(error)}`);
    assert.equal(error.code, 400);
    assert.match(error.detail ?? '', detail);
    return true;
  };
}

test('parsePersonPair takes [name, phone] and, when only one is a phone, [phone, name]', () => {
  assert.deepEqual(parsePersonPair(['Kim Lee', '+1 415 555 0100'], 0, 'US'), { name: 'Kim Lee', phone: '+14155550100' });
  assert.deepEqual(parsePersonPair(['+1 415 555 0100', 'Kim Lee'], 0, 'US'), { name: 'Kim Lee', phone: '+14155550100' });
});

test('parsePersonPair normalises the phone to E.164 in the default country, and the name', () => {
  const expected = { name: 'Kim Lee', phone: '+14155550100' };
  for (const phone of ['+1 415 555 0100', '415 555 0100', '(415) 555-0100', '415.555.0100', '+14155550100']) {
    assert.deepEqual(parsePersonPair(['  Kim \t  Lee ', phone], 3, 'US'), expected, phone);
  }
  assert.deepEqual(parsePersonPair(['Min', '02-312-3456'], 0, 'KR'), { name: 'Min', phone: '+8223123456' });
  assert.deepEqual(parsePersonPair(['Min', '+82 2-312-3456'], 0, 'US'), { name: 'Min', phone: '+8223123456' }, 'an explicit country wins');
});

test('parsePersonPair refuses two phones, no phone and wrong shapes with a detail naming the index', () => {
  assert.throws(() => parsePersonPair(['+1 415 555 0100', '415 555 0101'], 4, 'US'), refusedWith(/^to_person\[4\] holds two phone numbers/));
  assert.throws(() => parsePersonPair(['Kim', 'Lee'], 2, 'US'), refusedWith(/^to_person\[2\] holds no valid phone number/));
  assert.throws(() => parsePersonPair(['Kim', '+1 999 0'], 2, 'US'), refusedWith(/^to_person\[2\] holds no valid phone number/));
  assert.throws(() => parsePersonPair(['   ', '+1 415 555 0100'], 1, 'US'), refusedWith(/^to_person\[1\] has an empty name/));
  assert.throws(
    () => parsePersonPair(['x'.repeat(MAX_PERSON_NAME_LENGTH + 1), '+1 415 555 0100'], 1, 'US'),
    refusedWith(/^to_person\[1\] has a name longer than/),
  );
  for (const shape of ['Kim +1 415 555 0100', ['Kim'], ['Kim', '+1 415 555 0100', 'x'], ['Kim', 4155550100], null, { name: 'Kim' }]) {
    assert.throws(() => parsePersonPair(shape, 7, 'US'), refusedWith(/^to_person\[7\] must be a \[name, phone\] pair/), JSON.stringify(shape));
  }
});

test('names compare trimmed with inner whitespace collapsed; distinctPeople keeps first appearances', () => {
  assert.equal(normalizePersonName(' Kim \n Lee  '), 'Kim Lee');
  const kim = { name: 'Kim', phone: '+14155550100' };
  const other = { name: 'Kim', phone: '+14155550101' };
  assert.deepEqual(distinctPeople([kim, other, { ...kim }, { name: 'Lee', phone: kim.phone }]), [kim, other, { name: 'Lee', phone: kim.phone }]);
});
