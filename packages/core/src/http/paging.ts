import * as v from 'valibot';
import { safeIntegerText } from './validate.js';

/**
 * Paging of every admin list (one convention, here only):
 *
 * - The query takes `limit` (1–500, default 100) and `after`: an opaque cursor, the `next_after`
 *   of the previous answer (left out: the first page). A cursor that does not decode is 400
 *   `invalid_request`; one that decodes is a position, whether or not a row still has it.
 * - The answer holds its items and `next_after`: a string while more rows remain, null on the
 *   last page. The service reads `limit + 1` rows in its order (a time, then an id as the
 *   tie-break), shows the first `limit`, and `nextAfter` encodes the last one shown.
 * - A cursor is base64url of `<epoch ms>.<id>` (the last row's time and id); `id` is 1 to 128
 *   printable ASCII characters. Clients never build or read one.
 *
 * @example
 * query: v.object({ state: …, ...pageQuery }),
 * response: v.object({ items: …, next_after: nextAfterField }),
 * // service: rows = …where (time, id) after query.after….limit(query.limit + 1)
 * return { items: rows.slice(0, limit).map(view), next_after: nextAfter(rows, limit, (row) => ({ at: readTime(row.created_at), id: row.id })) };
 */
export interface PageCursor {
  /** The last shown row's time (whole milliseconds). */
  at: Date;
  /** The last shown row's id: the tie-break between rows of one time. */
  id: string;
}

const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,256}$/;
/** At most 8.64e15 ms (the last valid Date); printable ASCII ids, so no NUL or control reaches a query. */
const CURSOR_BODY = /^(0|[1-9]\d{0,15})\.([\x21-\x7e]{1,128})$/;
const MAX_TIME_MS = 8.64e15;

/** The cursor of the row `cursor` names: base64url of `<epoch ms>.<id>`. */
export function encodeCursor(cursor: PageCursor): string {
  const ms = cursor.at.getTime();
  if (!Number.isSafeInteger(ms) || ms < 0 || !/^[\x21-\x7e]{1,128}$/.test(cursor.id)) throw new Error('encodeCursor: not a pageable row (time before 1970 or an id that is not 1–128 printable ASCII)');
  return Buffer.from(`${ms}.${cursor.id}`, 'utf8').toString('base64url');
}

/** The position a cursor made by `encodeCursor` names, or null for any other text (also a non-canonical encoding of one). */
export function decodeCursor(text: string): PageCursor | null {
  if (!CURSOR_TEXT.test(text)) return null;
  const parts = CURSOR_BODY.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (parts === null) return null;
  const ms = Number(parts[1]);
  if (ms > MAX_TIME_MS) return null;
  const cursor = { at: new Date(ms), id: parts[2]! };
  // Base64url decoding forgives stray bits and padding: only the one spelling this side makes is a cursor.
  return encodeCursor(cursor) === text ? cursor : null;
}

const CURSOR_MESSAGE = 'after must be the next_after of an earlier page of this list';

/** The `after` query parameter: a cursor, decoded to `{ at, id }`; any other text is refused (400 `invalid_request`). */
export const pageCursor = v.pipe(
  v.string(CURSOR_MESSAGE),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const cursor = decodeCursor(dataset.value);
    if (cursor === null) {
      addIssue({ message: CURSOR_MESSAGE });
      return NEVER;
    }
    return cursor;
  }),
);

/** The `limit` query parameter: 1 to 500, 100 when left out. */
export const pageLimit = v.optional(safeIntegerText({ min: 1, max: 500 }), '100');

/** The paging fields of an admin list's query: spread into its `v.object`. */
export const pageQuery = { limit: pageLimit, after: v.optional(pageCursor) };

/** The `next_after` field of an admin list's answer: pass it as `after` for the next page; null on the last page. */
export const nextAfterField = v.nullable(v.string());

/**
 * The `next_after` of a page read as `limit + 1` rows: the cursor of the last row shown
 * (`rows[limit - 1]`) when the extra row came back, else null (the last page).
 */
export function nextAfter<T>(rows: readonly T[], limit: number, keyOf: (row: T) => PageCursor): string | null {
  return rows.length > limit && limit > 0 ? encodeCursor(keyOf(rows[limit - 1]!)) : null;
}
