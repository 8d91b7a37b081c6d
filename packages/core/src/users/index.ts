export { premiumActive, UserRepository, type UserInfo } from './repo.js';
