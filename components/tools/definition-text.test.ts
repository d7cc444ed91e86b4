import { describe, expect, it } from 'vitest';
import { definitionText } from './definition-text';

describe('definitionText', () => {
  it('reads a description as its lines and the rest as JSON with sorted keys', () => {
    const text = definitionText({
      name: 'note_down',
      description: 'Appends a line.\nNothing else.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      annotations: { readOnlyHint: false, destructiveHint: false },
    });
    expect(text).toBe(
      [
        'name: note_down\n',
        'description:\n  Appends a line.\n  Nothing else.\n',
        'inputSchema:\n  {\n    "properties": {\n      "text": {\n        "type": "string"\n      }\n    },\n    "type": "object"\n  }\n',
        'annotations:\n  {\n    "destructiveHint": false,\n    "readOnlyHint": false\n  }\n',
      ].join('\n'),
    );
  });

  it('differs only where the definitions differ: key order is not a change', () => {
    const a = definitionText({ name: 't', inputSchema: { type: 'object', required: ['x'] }, security: { risk_level: 'safe' } });
    const b = definitionText({ security: { risk_level: 'safe' }, inputSchema: { required: ['x'], type: 'object' }, name: 't' });
    expect(a).toBe(b);
  });
});
