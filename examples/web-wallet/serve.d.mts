/** Starts the example web wallet's page server in front of the wallet backend at `apiUrl`. */
export function startWebWallet(options: { apiUrl: string; port?: number; host?: string }): Promise<{ url: string; close(): Promise<void> }>;
