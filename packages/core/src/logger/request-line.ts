/** A request's one log line (http/boundary.ts): method, path without query, status, error code, ms. */
export interface RequestLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  /** The error code of a refused request; written only when set. */
  code: string | undefined;
  ms: number;
}

/** Where a logger made by createJsonLogger keeps its own writer of request lines (logger/index.ts). */
export const WRITE_REQUEST_LINE = Symbol('wallet-backend.writeRequestLine');

/** Names a request line writes besides its bindings': a binding of one of them makes the logger fall back to the generic line. */
export const REQUEST_LINE_NAMES: readonly string[] = ['level', 'time', 'msg', 'request_id', 'method', 'path', 'status', 'code', 'ms'];

/** Printable ASCII other than `"` and `\`: text JSON writes as it is, between quotes. */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

const jsonText = (text: string): string => (PLAIN_TEXT.test(text) ? `"${text}"` : JSON.stringify(text));
const jsonNumber = (value: number): string => (Number.isFinite(value) ? `${value}` : 'null');

/**
 * The request line as JSON.stringify writes `{ level: 'info', time, msg: 'request', ...bindings,
 * request_id, method, path, status, code?, ms }`; `boundJson` is the bindings' members as
 * written (`,"component":"x"`), or ''.
 */
export function formatRequestLine(time: string, boundJson: string, line: RequestLine): string {
  const code = line.code ? `,"code":${jsonText(line.code)}` : '';
  return `{"level":"info","time":"${time}","msg":"request"${boundJson},"request_id":${jsonText(line.requestId)},"method":${jsonText(line.method)},"path":${jsonText(line.path)},"status":${jsonNumber(line.status)}${code},"ms":${jsonNumber(line.ms)}}`;
}
