export { ChallengeStore, type IssuedChallenge } from './store.js';
