export { ChallengeStore, type IssuedChallenge } from './store.js';
export { challengesPlugin } from './plugin.js';
