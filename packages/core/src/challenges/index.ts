export { ChallengeStore, type Challenges, type IssuedChallenge } from './store.js';
