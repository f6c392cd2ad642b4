/**
 * How busy a quiet process is, measured without touching the code under test: the number of
 * timers (setTimeout/setInterval/setImmediate) created while waiting. A component that polls in a
 * tight loop creates hundreds per second; an idle one, almost none.
 */
import { createHook } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export async function timersCreatedDuring(ms: number): Promise<number> {
  let count = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'Timeout' || type === 'Immediate') count++;
    },
  });
  hook.enable();
  try {
    await sleep(ms);
  } finally {
    hook.disable();
  }
  return count;
}
