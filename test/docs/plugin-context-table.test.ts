import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { REPO_ROOT } from '../harness/index.js';
import { readDoc } from './doc-snippets.js';

/** Every member of `PluginContext` (`users.erase` for a nested one), as contract.ts declares it. */
function contextMembers(): string[] {
  const file = 'packages/core/src/plugin/contract.ts';
  const source = ts.createSourceFile(file, readFileSync(join(REPO_ROOT, file), 'utf8'), ts.ScriptTarget.ES2022, true);
  const context = source.statements.find((node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === 'PluginContext');
  if (context === undefined) throw new Error(`no PluginContext in ${file}`);
  const walk = (members: ts.NodeArray<ts.TypeElement>, prefix: string): string[] =>
    members.flatMap((member) => {
      const name = `${prefix}${member.name!.getText(source)}`;
      const type = ts.isPropertySignature(member) ? member.type : undefined;
      return type !== undefined && ts.isTypeLiteralNode(type) ? walk(type.members, `${name}.`) : [name];
    });
  return walk(context.members, '');
}

describe('docs/plugins.md: the plugin context table', () => {
  const table = readDoc('plugins.md').split('## The plugin context')[1]!.split('\n### ')[0]!;
  const documented = [...table.matchAll(/^\| (.+?) \|/gm)].flatMap(([, cell]) => [...cell!.matchAll(/`([\w.]+)(?:\(|`)/g)].map(([, name]) => name!));

  it('names every member of PluginContext', () => {
    const members = contextMembers();
    expect(members).to.include('users.erase').and.include('auth.addSessionGuard').and.include('onClose');
    // A group documented as a whole (`chains`, `hooks`) covers its members.
    const missing = members.filter((member) => !documented.includes(member) && !documented.includes(member.split('.')[0]!));
    expect(missing, `members of PluginContext missing from the table: ${missing.join(', ')}`).to.deep.equal([]);
  });
});
