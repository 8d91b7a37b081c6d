import { expect } from 'chai';
import type { Knex } from '@wallet/backend-core';
import type { DialectName } from './backend.js';

/** A statement to plan, as knex built it (native `$n` placeholders are accepted). */
export type PlannedQuery = { sql: string; bindings: readonly Knex.RawBinding[] };

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** Rows a scan of `table` handed on or threw away, over all its loops. */
const rowsRead = (node: PlanNode) => ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * (node['Actual Loops'] ?? 1);

/**
 * Plans `query` (Postgres: EXPLAIN ANALYZE in a transaction rolled back; SQLite: EXPLAIN QUERY
 * PLAN) and expects it to read `expected.index` of `expected.table`: no sort, no full scan, and on
 * Postgres no more rows handed on by the table's scans than `returns` plus `slack`.
 */
export async function expectPlan(dialect: DialectName, knex: Knex, query: PlannedQuery, expected: { table: string; index: string; returns: number; slack?: number }): Promise<void> {
  const sql = query.sql.replace(/\$\d+/g, '?');
  const rollback = new Error('rollback');
  let text = '';
  let nodes: PlanNode[] = [];
  await knex
    .transaction(async (trx) => {
      if (dialect === 'postgres') {
        const result = (await trx.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, query.bindings)) as { rows: Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }> };
        const root = result.rows[0]!['QUERY PLAN'][0]!.Plan;
        text = JSON.stringify(root, null, 1);
        nodes = nodesOf(root);
      } else {
        const rows = (await trx.raw(`EXPLAIN QUERY PLAN ${sql}`, query.bindings)) as Array<{ detail: string }>;
        text = rows.map((row) => row.detail).join('\n');
      }
      // An UPDATE under EXPLAIN ANALYZE runs: none of it stays.
      throw rollback;
    })
    .catch((err: unknown) => {
      if (err !== rollback) throw err;
    });
  const context = `${query.sql}\n${text}`;
  if (dialect === 'sqlite') {
    expect(text, context).to.match(new RegExp(`USING (COVERING )?INDEX ${expected.index}\\b`));
    expect(text, `no sort: ${context}`).to.not.include('TEMP B-TREE');
    expect(text, `no full scan: ${context}`).to.not.match(new RegExp(`SCAN ${expected.table}(?! USING)`));
    return;
  }
  expect(
    nodes.map((node) => node['Node Type']),
    `no sort: ${context}`,
  ).to.not.include.members(['Sort', 'Incremental Sort']);
  expect(
    nodes.map((node) => node['Node Type']),
    `no full scan: ${context}`,
  ).to.not.include('Seq Scan');
  const indexes = nodes.flatMap((node) => (node['Index Name'] === undefined ? [] : [node['Index Name']]));
  expect(indexes, context).to.have.length.above(0);
  expect(new Set(indexes), context).to.deep.equal(new Set([expected.index]));
  const scans = nodes.filter((node) => node['Relation Name'] === expected.table);
  for (const scan of scans) expect(rowsRead(scan), `rows read: ${context}`).to.be.at.most(expected.returns + (expected.slack ?? 0));
}
