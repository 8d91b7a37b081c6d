/** A response as the tests look at it. */
export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as-is (string or bytes) with the given or no content type. */
  raw?: string | Uint8Array;
  token?: string;
  headers?: Record<string, string>;
}

/** An HTTP client for a backend listening on loopback: real sockets, real parsing. */
export class TestClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    let body: string | Uint8Array | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    } else if (options.raw !== undefined) {
      body = options.raw;
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }

  post<T = any>(path: string, json?: unknown, options: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...options, ...(json === undefined ? {} : { json }) });
  }

  delete<T = any>(path: string, json?: unknown, options: RequestOptions = {}) {
    return this.request<T>('DELETE', path, { ...options, ...(json === undefined ? {} : { json }) });
  }
}

/** The error a promise rejects with; fails the test when it resolves instead. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)?.slice(0, 200)}`);
    },
    (err: unknown) => err,
  );
}
