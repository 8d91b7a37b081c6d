/** The TypeScript text of the document's `paths`, `components` and `operations` (openapi-typescript). */
export function apiTypesOf(document: unknown): Promise<string>;
/** The OpenAPI document in `file`. */
export function readPublishedDocument(file: string): unknown;
