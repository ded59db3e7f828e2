import { Document, isScalar, visit, type Scalar } from 'yaml';
import type { JsonObject } from './repo-entity.js';

/**
 * Canonical YAML of an entity file: a schema modeline for editors, keys in the order given, and
 * multi-line strings (JSON5 blocks) as literal blocks so their comments stay readable.
 */
export function entityYaml(data: JsonObject, schemaPath: string): string {
  const doc = new Document(data);
  visit(doc, {
    Scalar(_key, node: Scalar) {
      if (isScalar(node) && typeof node.value === 'string' && node.value.includes('\n')) node.type = 'BLOCK_LITERAL';
    },
  });
  return `# yaml-language-server: $schema=${schemaPath}\n${doc.toString({ lineWidth: 0, indentSeq: true })}`;
}
