import assert from 'node:assert/strict';
import { test } from 'node:test';

/** The wallet app's amounts for people (packages/wallet-app/src/format.ts): rounded half up, exact kept elsewhere. */
test('amounts rounded for people: 4 decimals from 1 up, 4 significant digits below, dust said so', async () => {
  // Typed here by hand: the app's modules are typed for the browser, not for this package (`as
  // string` keeps TypeScript from checking that module; the path stays one a bundler follows).
  const { forPeople, fromUnits } = (await import('../../../wallet-app/src/format.ts' as string)) as { forPeople(exact: string): string; fromUnits(units: string, decimals: number): string };
  const cases: Array<[string, string]> = [
    ['8.499798542034403968', '8.4998'],
    ['8.49975', '8.4998'],
    ['8.49974', '8.4997'],
    ['1.99999', '2'],
    ['9.99996', '10'],
    ['123.4', '123.4'],
    ['10', '10'],
    ['0', '0'],
    ['0.5', '0.5'],
    ['0.000123456', '0.0001235'],
    ['0.00009999999', '0.0001'],
    ['0.00000001234', '0.00000001234'],
    ['0.000000001', '< 0.00000001'],
  ];
  assert.deepEqual(cases.map(([exact]) => [exact, forPeople(exact)]), cases);
  assert.equal(fromUnits('8499798542034403968', 18), '8.499798542034403968');
  assert.equal(fromUnits('2500000', 6), '2.5');
});
