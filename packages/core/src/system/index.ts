export { systemPlugin } from './plugin.js';
