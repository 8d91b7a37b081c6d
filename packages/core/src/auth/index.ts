export { TokenService, type TokenClaims, type TokenType, type TokenServiceOptions } from './tokens.js';
export { SessionRepository, type NewSession, type SessionRow } from './session-repo.js';
export { SessionService, type AuthResponse, type SessionGuard, type Sessions } from './session-service.js';
export { sessionRoutes } from './routes.js';
export { authResponse } from './schemas.js';
export { SignedActionVerifier, requestDescriptorHash, type SignedActions, type SignedAction, type SignedActionInput, type RequestDescriptor } from './signed-action.js';
