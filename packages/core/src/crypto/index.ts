export { createPeppers, type Peppers } from './pepper.js';
export { randomHex, newId } from './random.js';
