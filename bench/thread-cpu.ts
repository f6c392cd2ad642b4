/**
 * CPU time of the calling thread so far, ms (Linux: /proc/thread-self/schedstat); null where that
 * file is missing. For benches that compare one thread's work apart from V8's helper threads.
 */
import { readFileSync } from 'node:fs';

export function threadCpuMs(): number | null {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}
