export { directoryErrors } from './errors.js';
export { normaliseKey, KEY_TYPES, type KeyType, type ReceivingKey, type SubmittedKey } from './key-forms.js';
export { KeyRepository, type UserKeyInfo } from './key-repo.js';
export { keyRegistrationMessage, registerKeyRequest, type RegisterKeyRequest } from './key-proof.js';
export { receivingKey } from './receiving-keys.js';
export { UsernameService, normaliseUsername, RESERVED_USERNAMES } from './usernames.js';
export { DirectoryService, type UsernameLookup, type GrinAddressOwner } from './directory-service.js';
export { submittedKey, assetSchema } from './schemas.js';
export { Nip05Cache, type Nip05Document } from './nip05-cache.js';
