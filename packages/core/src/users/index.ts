export { UserRepository, type UserInfo } from './repo.js';
