// Entry of a render worker thread. Worker threads do not inherit tsx's ESM hooks in Node 20, so
// register them here before loading the TypeScript task.
import { register } from 'tsx/esm/api';

register();
const task = await import('./task.ts');
export default task.default;
export const ready = task.ready;
export const check = task.check;
export const checkImage = task.checkImage;
