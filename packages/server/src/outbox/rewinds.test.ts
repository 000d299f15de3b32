import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChainContext } from '../chain/chains.ts';
import { ChainRewindWatch, REWIND_CHECK_MS, type RecordedBlock } from './rewinds.ts';

/** A chain whose blocks are a list of hashes (index = number); `node` marks a supervised one. */
function fakeChain(blocks: string[], supervised = false): ChainContext & { blocks: string[] } {
  const chain = {
    name: 'main',
    node: supervised ? {} : undefined,
    unanswered: { count: 0 },
    blocks,
    client: {
      getBlock: async (query: { blockTag?: 'latest'; blockNumber?: bigint }) => {
        const number = query.blockNumber ?? BigInt(chain.blocks.length - 1);
        const hash = chain.blocks[Number(number)];
        if (hash === undefined) throw new Error('no such block');
        return { number, hash };
      },
    },
  };
  return chain as unknown as ChainContext & { blocks: string[] };
}

test('a node that lost blocks, or replaced them, is reported once; a growing chain is not', async () => {
  const rewound: string[] = [];
  const watch = new ChainRewindWatch({ onRewind: async (chain) => rewound.push(chain.name), recordedAbove: async () => [] });
  const chain = fakeChain(['0xa0', '0xa1', '0xa2']);
  let now = 1_000_000;
  const step = () => watch.check([chain], (now += REWIND_CHECK_MS));
  await step();
  chain.blocks.push('0xa3');
  await step();
  assert.deepEqual(rewound, [], 'new blocks are no rewind');

  chain.blocks = ['0xa0', '0xa1'];
  await step();
  assert.deepEqual(rewound, ['main'], 'a lower head');
  await step();
  assert.deepEqual(rewound, ['main'], 'reported once');

  chain.blocks = ['0xa0', '0xb1', '0xb2', '0xb3'];
  await step();
  assert.deepEqual(rewound, ['main', 'main'], 'the block seen last was replaced, though the head is higher');

  await watch.check([chain], now + 1);
  chain.blocks = ['0xa0'];
  await watch.check([chain], now + 2);
  assert.equal(rewound.length, 2, 'checked at most once per interval');
});

test('a node this process supervises is checked whole when it restarted or left a call unanswered, not by its head', async () => {
  const rewound: string[] = [];
  const watch = new ChainRewindWatch({ onRewind: async (chain) => rewound.push(chain.name), recordedAbove: async () => [] });
  const chain = fakeChain(['0xa0', '0xa1'], true);
  await watch.remember(chain, 1_000_000);
  await watch.check([chain], 1_000_000 + REWIND_CHECK_MS);
  chain.blocks = ['0xa0'];
  await watch.check([chain], 1_000_000 + 2 * REWIND_CHECK_MS);
  assert.deepEqual(rewound, [], 'its head is not watched');
  assert.equal(watch.maySend(chain), true);

  watch.suspect(chain.name);
  assert.equal(watch.maySend(chain), false, 'held from its death until checked');
  await watch.check([chain], 1_000_000 + 2 * REWIND_CHECK_MS + 1);
  assert.deepEqual(rewound, ['main'], 'checked at the next pass, whatever the interval');
  assert.equal(watch.maySend(chain), true);

  chain.unanswered.count += 1;
  assert.equal(watch.maySend(chain), false, 'a call left unanswered holds it too');
  await watch.check([chain], 1_000_000 + 2 * REWIND_CHECK_MS + 2);
  assert.deepEqual(rewound, ['main', 'main']);
  assert.equal(watch.maySend(chain), true);
});

test('an external node that left a call unanswered is held and checked at once; a check that fails keeps it held', async () => {
  const rewound: string[] = [];
  const watch = new ChainRewindWatch({ onRewind: async (chain) => rewound.push(chain.name), recordedAbove: async () => [] });
  const chain = fakeChain(['0xa0', '0xa1', '0xa2']);
  const now = 1_000_000;
  await watch.remember(chain, now);
  assert.equal(watch.maySend(chain), true);
  // Down: the check cannot read the head.
  const blocks = chain.blocks;
  chain.blocks = [];
  chain.unanswered.count += 1;
  await watch.check([chain], now + 1);
  assert.equal(watch.maySend(chain), false, 'still held while the node does not answer');
  // Back from an older state dump, mined past the old head again.
  chain.blocks = [...blocks.slice(0, 2), '0xb2', '0xb3'];
  await watch.check([chain], now + 2);
  assert.deepEqual(rewound, ['main'], 'checked before the interval is up, and the loss found');
  assert.equal(watch.maySend(chain), true);
});

test('blocks lost after the last check and mined past again are noticed by the receipts recorded from them', async () => {
  const rewound: string[] = [];
  const recorded: RecordedBlock[] = [];
  const watch = new ChainRewindWatch({
    onRewind: async (chain) => rewound.push(chain.name),
    recordedAbove: async (_chain, height, limit) => recorded.filter((row) => row.block_number! > height).slice(0, limit),
  });
  const chain = fakeChain(['0xa0', '0xa1', '0xa2']);
  let now = 1_000_000;
  const step = () => watch.check([chain], (now += REWIND_CHECK_MS));
  await step();
  // Mined after the check, and their receipts recorded (by any process).
  chain.blocks.push('0xa3', '0xa4');
  recorded.push({ block_number: 3, block_hash: '0xa3' }, { block_number: 4, block_hash: '0xa4' });
  await step();
  assert.deepEqual(rewound, [], 'receipts the chain still has are no rewind');

  chain.blocks.push('0xa5');
  recorded.push({ block_number: 5, block_hash: '0xa5' });
  // Killed before its state dump held block 5, restarted, and mined past it before the next check.
  chain.blocks = ['0xa0', '0xa1', '0xa2', '0xa3', '0xa4', '0xb5', '0xb6'];
  await step();
  assert.deepEqual(rewound, ['main'], 'the block seen last is still there, but a recorded receipt is not');
});

test('the head remembered at start is the baseline: a loss before the first check is noticed', async () => {
  const rewound: string[] = [];
  const watch = new ChainRewindWatch({ onRewind: async (chain) => rewound.push(chain.name), recordedAbove: async () => [] });
  const chain = fakeChain(['0xa0', '0xa1', '0xa2']);
  await watch.remember(chain, 1_000_000);
  chain.blocks = ['0xa0', '0xb1', '0xb2', '0xb3'];
  await watch.check([chain], 1_000_000 + REWIND_CHECK_MS);
  assert.deepEqual(rewound, ['main']);
});
